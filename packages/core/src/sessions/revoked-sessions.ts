import type { Logger } from '../logging/logger.js';
import type {
  RevocationChannel,
  RevocationSubscription,
  SessionRevocation,
} from '../ports/revocation-channel.js';

/**
 * `off`: no channel or no record to catch up from (a session JWT is then accepted until it
 * expires); `idle`: not started yet (started by the first jwt-mode check); `starting`: filling
 * from storage; `live`: current; `lost`: the channel broke, checks read storage until caught up.
 */
export type RevocationState = 'off' | 'idle' | 'starting' | 'live' | 'lost';

/** The longest a session JWT can live (`sessions.jwt_lifetime_seconds` tops out at 3600). */
export const MAX_JWT_LIFETIME_SECONDS = 3600;
/** Kept past a JWT's longest life: clocks of the signing and checking processes may differ. */
export const SKEW_SECONDS = 60;
/** How far back a revocation can matter: the record need keep no older one. */
export const RETENTION_SECONDS = MAX_JWT_LIFETIME_SECONDS + SKEW_SECONDS;
/** Caught up again after a reconnect from this long before the channel broke. */
const OVERLAP_SECONDS = 5;
/** Retries of a failed start or catch-up back off up to this. */
const MAX_RETRY_MS = 10_000;
/** A channel can lose a message without breaking (a deleted user on a bus only this side hears of). */
const SWEEP_MS = 30_000;

interface Deps {
  channel: RevocationChannel | undefined;
  /** The record: revocations at or after `since` (Unix s), every App's. */
  revokedSince: ((since: number) => Promise<SessionRevocation[]>) | undefined;
  now: () => number;
  logger: Logger;
}

/**
 * The session ids this process refuses in jwt mode: every revocation whose JWTs may still be
 * live, filled from storage and kept current by the channel. Until it is current (`trusted`),
 * jwt-mode checks read storage instead, so a revocation is never missed, only paid for.
 */
export function revokedSessions({ channel, revokedSince, now, logger }: Deps) {
  // session id → the time after which none of its JWTs can be live.
  const until = new Map<string, number>();
  let state: RevocationState = channel && revokedSince ? 'idle' : 'off';
  let subscription: RevocationSubscription | undefined;
  let lostAt = 0;
  // Counts breaks, so a recovery that a new break overtook does not call the channel live.
  let breaks = 0;
  let channelUp = false;
  let retryMs = 250;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let sweep: ReturnType<typeof setInterval> | undefined;
  let caughtUpTo = 0;
  let closed = false;
  let started: Promise<void> | undefined;

  const add = (revocations: readonly SessionRevocation[]) => {
    for (const r of revocations) {
      const keep = r.revoked_at + RETENTION_SECONDS;
      if (keep > now()) until.set(r.session_id, Math.max(keep, until.get(r.session_id) ?? 0));
    }
  };
  const prune = () => {
    const t = now();
    for (const [id, keep] of until) if (keep <= t) until.delete(id);
  };

  /** Reads the record from `since`; true once current. */
  async function catchUp(since: number): Promise<boolean> {
    const started = now();
    try {
      add(await (revokedSince as NonNullable<typeof revokedSince>)(since));
      caughtUpTo = started - OVERLAP_SECONDS;
      retryMs = 250;
      return true;
    } catch (err) {
      logger.warn({ err }, 'latchkey: could not read session revocations; checking sessions in storage');
      return false;
    }
  }

  const retry = (fn: () => void) => {
    if (closed) return;
    timer = setTimeout(fn, retryMs);
    timer.unref?.();
    retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
  };

  async function start(): Promise<void> {
    if (closed) return;
    state = 'starting';
    try {
      subscription = await (channel as RevocationChannel).subscribe({
        revoked: add,
        lost(err) {
          breaks += 1;
          channelUp = false;
          if (state === 'lost') return;
          state = 'lost';
          lostAt = now();
          logger.warn(
            { err },
            'latchkey: the session revocation channel is down; jwt-mode checks read storage until it is back',
          );
        },
        restored() {
          channelUp = true;
          void recover();
        },
      });
      if (closed) return void subscription.close();
    } catch (err) {
      state = 'lost';
      lostAt = now();
      logger.warn({ err }, 'latchkey: could not listen for session revocations; retrying');
      return retry(() => void start());
    }
    channelUp = true;
    sweep = setInterval(() => {
      prune();
      if (state === 'live') void catchUp(caughtUpTo);
    }, SWEEP_MS);
    sweep.unref?.();
    await recover(now() - RETENTION_SECONDS);
  }

  /**
   * Reads what the channel may have missed, then trusts it again: only while it is up and did
   * not break meanwhile (a break restarts this from its `restored`).
   */
  async function recover(since?: number): Promise<void> {
    if (closed || (state !== 'lost' && state !== 'starting') || !channelUp) return;
    const seen = breaks;
    const from = since ?? Math.max(Math.min(lostAt, caughtUpTo) - OVERLAP_SECONDS, now() - RETENTION_SECONDS);
    if (!(await catchUp(from))) return retry(() => void recover(since));
    if ((state === 'lost' || state === 'starting') && channelUp && breaks === seen) {
      const wasLost = state === 'lost';
      state = 'live';
      if (wasLost) logger.info({}, 'latchkey: the session revocation channel is back and caught up');
    }
  }

  return {
    /**
     * Starts listening on first use; a no-op once started, or with nothing to listen to. Called
     * on every jwt-mode check, so it allocates nothing after the first.
     */
    start(): void {
      if (state === 'idle') started = start();
    },
    /** Starts listening; resolves when the first attempt ends (live, or lost and retrying). */
    async watch(): Promise<void> {
      if (state === 'idle') started = start();
      await started;
    },
    /** True when `has` is the whole answer; false: read the session from storage. */
    trusted(): boolean {
      return state === 'live' || state === 'off';
    },
    /** Whether this process holds a revocation for the session (while `trusted`). */
    has(sessionId: string): boolean {
      return until.size !== 0 && until.has(sessionId);
    },
    /** Revocations made in this process: refused here at once, announced to the others. */
    revokedHere(revocations: readonly SessionRevocation[]): void {
      if (revocations.length === 0) return;
      add(revocations);
      channel
        ?.publish?.(revocations)
        .catch((err: unknown) => logger.warn({ err }, 'latchkey: could not announce a session revocation'));
    },
    state: (): RevocationState => state,
    async close(): Promise<void> {
      closed = true;
      clearTimeout(timer);
      clearInterval(sweep);
      await subscription?.close();
      subscription = undefined;
    },
  };
}

export type RevokedSessions = ReturnType<typeof revokedSessions>;
