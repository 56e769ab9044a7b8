import { z } from '@hono/zod-openapi';

const limit = z.int().min(1).max(1_000_000);
const windowSeconds = z.int().min(1).max(86_400);

/** What a route rule counts by: the client's IP, the whole App, or a string field of the body. */
export type RuleKey = 'ip' | 'app' | `body.${string}`;

export const routeRuleSchema = z.object({
  limit,
  window_seconds: windowSeconds,
  /** `ip` (the default), `app`, or `body.<field>` (e.g. `body.method_id`; IP when absent). */
  by: z
    .string()
    .regex(/^(ip|app|body\.[A-Za-z_][A-Za-z0-9_]{0,63})$/, 'by must be ip, app or body.<field>')
    .default('ip')
    .transform((v) => v as RuleKey),
});

export type RouteRule = z.infer<typeof routeRuleSchema>;

/** `METHOD /v1/path/{param}`, exactly as the route appears in the OpenAPI document. */
export const ROUTE_KEY = /^(GET|POST|PUT|PATCH|DELETE) \/v1\/[A-Za-z0-9_{}/.-]*$/;

const classRule = (l: number, w: number) =>
  z.object({ limit: limit.default(l), window_seconds: windowSeconds.default(w) }).prefault({});

/**
 * The App settings `rate_limits.public_routes` and `rate_limits.routes`. Class defaults count
 * calls made with the public token per client IP; a rule for a route replaces its class default
 * and counts every call, whatever the key.
 */
export const routeLimitSettings = {
  /**
   * Calls with the public token, per App and client IP: `verify` for routes that check a
   * passcode, link, TOTP, signature or assertion; `send` for routes that send a message or start
   * a proof (the per-destination send limits apply as well); `compute` for routes that cost us
   * CPU (the password strength check).
   */
  public_routes: z
    .object({ verify: classRule(30, 60), send: classRule(30, 60), compute: classRule(60, 60) })
    .prefault({}),
  routes: z.record(z.string().regex(ROUTE_KEY, 'a route is "METHOD /v1/path"'), routeRuleSchema).default({}),
};
