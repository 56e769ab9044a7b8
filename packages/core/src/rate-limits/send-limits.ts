import type { AppRecord } from '../apps/repo.js';
import { LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { RateLimitHit } from '../ports/rate-limiter.js';

/**
 * A window counted for this request elsewhere (the route's, deferred by the HTTP pipeline):
 * `counted` once some step has counted it, so it is counted exactly once.
 */
export interface PendingHit {
  hit: RateLimitHit;
  counted: boolean;
}

/**
 * The App's limits on messages (passcodes, links): per destination, for the whole App and, for
 * SMS, the App's SMS budget; `more` adds a sender's own (an organization's invitations). Called
 * before anything is written, so a refused call leaves no record behind. A limiter that counts several windows at once (`hitAll`) counts them in one
 * step; each window counts this send whether or not another refuses it, as when they are
 * counted one by one. `also`: a window to count first, in the same step (the route's).
 */
export async function checkSendLimits(
  k: Kernel,
  app: AppRecord,
  destination: string,
  channel: 'sms' | 'email' = 'email',
  { more = [], also }: { more?: readonly RateLimitHit[]; also?: PendingHit | undefined } = {},
): Promise<void> {
  const rules = app.settings.rate_limits;
  const hits: RateLimitHit[] = [
    { key: `send:app:${app.id}`, ...limitOf(rules.per_app) },
    { key: `send:to:${app.id}:${destination}`, ...limitOf(rules.per_destination) },
    ...more,
  ];
  if (channel === 'sms') hits.unshift({ key: `send:sms:${app.id}`, ...limitOf(rules.per_app_sms) });
  // First, so its refusal is the one answered, as when the pipeline counted it before the route.
  if (also && !also.counted) {
    also.counted = true;
    hits.unshift(also.hit);
  }
  if (k.rateLimiter.hitAll) {
    const refused = (await k.rateLimiter.hitAll(hits)).find((d) => !d.allowed);
    if (refused) throw new LatchkeyError('rate_limited', undefined, { retryAfter: refused.retryAfter });
    return;
  }
  for (const hit of hits) {
    const decision = await k.rateLimiter.hit(hit.key, hit.limit, hit.windowSeconds);
    if (!decision.allowed)
      throw new LatchkeyError('rate_limited', undefined, { retryAfter: decision.retryAfter });
  }
}

export const limitOf = (rule: { limit: number; window_seconds: number }) => ({
  limit: rule.limit,
  windowSeconds: rule.window_seconds,
});
