import type { MiddlewareHandler } from 'hono';
import { LatchkeyError } from '../errors.js';
import type { HttpEnv } from './env.js';
import { anyKeySecurity, openSecurity, secretKeySecurity } from './security.js';

/**
 * The default public-token limit a route falls under: `verify` checks a secret the caller could
 * guess at, `send` costs a message or starts a proof, `compute` is CPU-heavy for us and free for
 * the caller, `other` has no default limit (an App may still set one per route).
 */
export type RouteClass = 'verify' | 'send' | 'compute' | 'other';

/**
 * What a route asks of the caller, declared next to its `createRoute`: the middleware reads it
 * instead of the path. `open`: no API key. `secret`: the App's secret key only. `public`: the
 * public token too, which needs a rate class, and `namedUser` lists the body fields that, when
 * present, name a user and so need the secret key.
 */
export type RoutePolicy =
  /** `body: 'form'`: the body is a form (a provider's form_post), read as text, not JSON. */
  | { key: 'open'; body?: 'form' }
  | { key: 'secret' }
  | {
      key: 'public';
      rate: RouteClass;
      namedUser?: readonly string[];
      /**
       * The public token may come as the `public_token` query parameter instead of the header:
       * for a browser navigation (an OAuth start), which carries no header. Never the secret key.
       */
      tokenInQuery?: boolean;
      /**
       * The route's rate-limit window is counted by the service's send limits, in the same step
       * as the send's own windows, when the call gets that far; on any other path (a bad body,
       * an error before the send's check) the pipeline counts it once the route has answered,
       * and a refusal still answers 429. Only for routes that write nothing before that check.
       */
      limitWithSend?: boolean;
    };

/** The OpenAPI extension the declaration travels in, so the route table reads it from the registry. */
export const POLICY_EXTENSION = 'x-latchkey-policy';

type Middleware = MiddlewareHandler<HttpEnv>;

/** Refuses a public token where the App's secret key is required. */
export const requireSecretKey: Middleware = async (c, next) => {
  if (c.get('keyKind') !== 'secret') throw new LatchkeyError('secret_key_required');
  return next();
};

/** Refuses a public token when the body names a user by one of `fields`. */
const secretKeyForFields =
  (fields: readonly string[]): Middleware =>
  async (c, next) => {
    if (c.get('keyKind') === 'secret') return next();
    const body = await c.req.json().catch(() => undefined);
    const named = body !== null && typeof body === 'object' && fields.find((f) => Object.hasOwn(body, f));
    if (named) throw new LatchkeyError('secret_key_required', undefined, { field: named });
    return next();
  };

/**
 * The route options for a policy: its OpenAPI security, the middleware that enforces it, and
 * the declaration itself. Spread into `createRoute({ ...policy({ … }), method, path, … })`.
 */
export function policy(p: RoutePolicy) {
  const declared = { [POLICY_EXTENSION]: p } as Record<typeof POLICY_EXTENSION, RoutePolicy>;
  if (p.key === 'open') return { security: openSecurity, ...declared };
  if (p.key === 'secret') return { security: secretKeySecurity, middleware: requireSecretKey, ...declared };
  const middleware = p.namedUser?.length ? [secretKeyForFields(p.namedUser)] : [];
  return { security: anyKeySecurity, middleware, ...declared };
}
