import type { AppRecord } from '../apps/repo.js';
import { LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';

/** The App's limits on messages (passcodes, links): per destination and for the whole App. */
export async function checkSendLimits(k: Kernel, app: AppRecord, destination: string): Promise<void> {
  const rules = app.settings.rate_limits;
  for (const [key, rule] of [
    [`send:app:${app.id}`, rules.per_app],
    [`send:to:${app.id}:${destination}`, rules.per_destination],
  ] as const) {
    const decision = await k.rateLimiter.hit(key, rule.limit, rule.window_seconds);
    if (!decision.allowed)
      throw new LatchkeyError('rate_limited', undefined, { retryAfter: decision.retryAfter });
  }
}
