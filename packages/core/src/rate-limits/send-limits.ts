import type { AppRecord } from '../apps/repo.js';
import { LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';

/**
 * The App's limits on messages (passcodes, links): per destination, for the whole App and, for
 * SMS, the App's SMS budget. Called before anything is written, so a refused call leaves no
 * record behind.
 */
export async function checkSendLimits(
  k: Kernel,
  app: AppRecord,
  destination: string,
  channel: 'sms' | 'email' = 'email',
): Promise<void> {
  const rules = app.settings.rate_limits;
  const checks: [string, { limit: number; window_seconds: number }][] = [
    [`send:app:${app.id}`, rules.per_app],
    [`send:to:${app.id}:${destination}`, rules.per_destination],
  ];
  if (channel === 'sms') checks.unshift([`send:sms:${app.id}`, rules.per_app_sms]);
  for (const [key, rule] of checks) {
    const decision = await k.rateLimiter.hit(key, rule.limit, rule.window_seconds);
    if (!decision.allowed)
      throw new LatchkeyError('rate_limited', undefined, { retryAfter: decision.retryAfter });
  }
}
