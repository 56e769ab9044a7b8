/**
 * Seconds to wait before each retry after a failed attempt: about 27 hours from the first
 * attempt to the last, so a receiver down for a day still gets every event. After the last
 * one fails the delivery is given up and its endpoint disabled.
 */
export const RETRY_DELAYS_SECONDS = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600] as const;

/** When the next attempt is due after `attempts` failed ones, or null when none is left. */
export function nextAttemptAt(attempts: number, now: number): number | null {
  const delay = RETRY_DELAYS_SECONDS[attempts - 1];
  return delay === undefined ? null : now + delay;
}
