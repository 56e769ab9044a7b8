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

/** The longest an endpoint is paused after a failure: a receiver back up is found within it. */
export const ENDPOINT_PAUSE_MAX_SECONDS = 300;

/**
 * How long an endpoint rests after its `failures`-th failure in a row: 1, 2, 4, … seconds up to
 * five minutes. Its other deliveries wait that long (they are not attempted, so they spend none
 * of their own retries), which spaces out a slow or dead receiver's attempts without touching
 * any other endpoint's.
 */
export function endpointPauseSeconds(failures: number): number {
  if (failures < 1) return 0;
  return Math.min(ENDPOINT_PAUSE_MAX_SECONDS, 2 ** Math.min(failures - 1, 30));
}
