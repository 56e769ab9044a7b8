import { sha256 } from '@noble/hashes/sha2.js';
import type { MiddlewareHandler } from 'hono';
import type { AppRecord } from '../apps/repo.js';
import { toHex, utf8 } from '../crypto/encoding.js';
import { LatchkeyError } from '../errors.js';
import type { HttpEnv } from '../http/env.js';
import type { RouteInfo } from '../http/route-table.js';
import type { RateLimiter } from '../ports/rate-limiter.js';
import type { RuleKey } from './route-rules.js';

export type RouteClass = 'verify' | 'send' | 'compute' | 'other';

// Session checks end in /authenticate too, but carry a 256-bit token, and pages call them often.
const NOT_VERIFY = new Set(['POST /v1/auth/sessions/authenticate']);
const VERIFY_STEPS = new Set(['verify', 'authenticate', 'recover', 'complete']);
const SEND_STEPS = new Set(['send', 'login_or_create', 'begin', 'challenge']);
// CPU-heavy for us, free for the caller.
const COMPUTE_STEPS = new Set(['strength_check']);

/**
 * The class of a route, by the last step of its path, so routes added later are classed
 * without a table: `verify` checks a secret the caller could guess at, `send` costs a message
 * or starts a proof.
 */
export function routeClass(routeKey: string): RouteClass {
  if (NOT_VERIFY.has(routeKey)) return 'other';
  const step = routeKey.split('/').at(-1) ?? '';
  if (VERIFY_STEPS.has(step)) return 'verify';
  if (SEND_STEPS.has(step)) return 'send';
  if (COMPUTE_STEPS.has(step)) return 'compute';
  return 'other';
}

interface AppliedRule {
  limit: number;
  window_seconds: number;
  by: RuleKey;
}

/** The rule for this call: the App's rule for the route, else its class default for public tokens. */
export function ruleFor(app: AppRecord, route: RouteInfo, keyKind: string): AppliedRule | undefined {
  const rules = app.settings.rate_limits;
  const own = rules.routes[route.key];
  if (own) return own;
  if (keyKind !== 'public') return undefined;
  const cls = routeClass(route.key);
  return cls === 'other' ? undefined : { ...rules.public_routes[cls], by: 'ip' };
}

/**
 * Per-route limits, after the key and the body are read and before the route's own checks
 * (a malformed guess counts like a wrong one). Answers 429 `rate_limited` with Retry-After.
 */
export function routeLimitMiddleware(
  limiter: RateLimiter,
  route: (method: string, path: string) => RouteInfo | undefined,
): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const app = c.get('app');
    const info = app && route(c.req.method, c.req.path);
    const rule = info && ruleFor(app, info, c.get('keyKind'));
    if (!rule) return next();
    const subject = await subjectOf(rule.by, c.env?.clientIp, () => c.req.json());
    const key = `route:${app.id}:${info.key}:${rule.by}:${subject}`;
    const decision = await limiter.hit(key, rule.limit, rule.window_seconds);
    if (!decision.allowed)
      throw new LatchkeyError('rate_limited', undefined, { retryAfter: decision.retryAfter });
    return next();
  };
}

async function subjectOf(by: RuleKey, clientIp: string | undefined, body: () => Promise<unknown>) {
  const ip = clientIp ?? 'unknown';
  if (by === 'app') return '*';
  if (by === 'ip') return ip;
  const value = await body().then(
    (b) =>
      b !== null && typeof b === 'object' && Object.hasOwn(b, by.slice(5))
        ? (b as Record<string, unknown>)[by.slice(5)]
        : undefined,
    () => undefined,
  );
  // Hashed: bounded in length, and no address or code lands in the limiter's store as typed.
  if (typeof value === 'string' || typeof value === 'number')
    return toHex(sha256(utf8(String(value)))).slice(0, 32);
  return `ip:${ip}`;
}
