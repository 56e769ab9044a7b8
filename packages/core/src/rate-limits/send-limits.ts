import type { AppRecord } from '../apps/repo.js';
import { LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { RateLimitHit } from '../ports/rate-limiter.js';

/**
 * The App's limits on messages (passcodes, links): per destination, for the whole App and, for
 * SMS, the App's SMS budget; `more` adds a sender's own (an organization's invitations). Called before anything is written, so a refused call leaves no
 * record behind. A limiter that counts several windows at once (`hitAll`) counts them in one
 * step; each window counts this send whether or not another refuses it, as when they are
 * counted one by one.
 */
export async function checkSendLimits(
  k: Kernel,
  app: AppRecord,
  destination: string,
  channel: 'sms' | 'email' = 'email',
  more: readonly RateLimitHit[] = [],
): Promise<void> {
  const rules = app.settings.rate_limits;
  const hits: RateLimitHit[] = [
    { key: `send:app:${app.id}`, ...limitOf(rules.per_app) },
    { key: `send:to:${app.id}:${destination}`, ...limitOf(rules.per_destination) },
    ...more,
  ];
  if (channel === 'sms') hits.unshift({ key: `send:sms:${app.id}`, ...limitOf(rules.per_app_sms) });
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
