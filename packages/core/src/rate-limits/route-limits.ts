import { sha256 } from '@noble/hashes/sha2.js';
import type { Context } from 'hono';
import { toHex, utf8 } from '../crypto/encoding.js';
import { LatchkeyError } from '../errors.js';
import type { HttpEnv, HttpVariables } from '../http/env.js';
import type { RouteInfo } from '../http/route-table.js';
import type { RateLimiter } from '../ports/rate-limiter.js';
import type { RuleKey } from './route-rules.js';
import type { PendingHit } from './send-limits.js';

interface AppliedRule {
  limit: number;
  window_seconds: number;
  by: RuleKey;
}

/**
 * The rule for this call: the App's rule for the route, else the default of the class the route
 * declared (`policy()` in its routes.ts), for public tokens.
 */
export function ruleFor(
  app: HttpVariables['app'],
  route: RouteInfo,
  keyKind: string,
): AppliedRule | undefined {
  const rules = app.settings.rate_limits;
  const own = rules.routes[route.key];
  if (own) return own;
  if (keyKind !== 'public') return undefined;
  const cls = route.rate;
  return cls === undefined || cls === 'other' ? undefined : { ...rules.public_routes[cls], by: 'ip' };
}

declare module '../http/env.js' {
  interface HttpVariables {
    /** The route's window, when the route counts it with its send's (RoutePolicy `limitWithSend`). */
    routeHit: PendingHit;
  }
}

/**
 * Per-route limits, after the key and the body are read and before the route's own checks
 * (a malformed guess counts like a wrong one). Answers 429 `rate_limited` with Retry-After.
 * A route that declared `limitWithSend` hands its window to the service's send limits (one
 * statement with the send's windows); when the call ends without reaching them, the window is
 * counted after the route, and a refusal replaces the answer, so a request over the route's
 * limit still gets 429 whatever else was wrong with it.
 */
export function routeLimitCheck(
  limiter: RateLimiter,
  route: (method: string, path: string) => RouteInfo | undefined,
) {
  return async (c: Context<HttpEnv>): Promise<void> => {
    const app = c.get('app');
    // HEAD is answered by the GET route: counted under its rule, not a way around it.
    const method = c.req.method === 'HEAD' ? 'GET' : c.req.method;
    const info = app && route(method, c.req.path);
    const rule = info && ruleFor(app, info, c.get('keyKind'));
    if (!rule) return;
    const subject = await subjectOf(rule.by, c.env?.clientIp, () => c.req.json());
    const key = `route:${app.id}:${info.key}:${rule.by}:${subject}`;
    const count = async () => {
      const decision = await limiter.hit(key, rule.limit, rule.window_seconds);
      if (!decision.allowed)
        throw new LatchkeyError('rate_limited', undefined, { retryAfter: decision.retryAfter });
    };
    if (!info.limitWithSend) return count();
    const pending: PendingHit = {
      hit: { key, limit: rule.limit, windowSeconds: rule.window_seconds },
      counted: false,
    };
    c.set('routeHit', pending);
    c.set('afterRoute', async () => {
      if (pending.counted) return;
      pending.counted = true;
      await count();
    });
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
