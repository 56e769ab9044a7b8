import type { RevocationChannel, RevocationListener } from '@latchkey/core';
import type { Redis, RedisOptions } from 'ioredis';
import { decodeRevocations, encodeRevocations } from './revocation-messages.js';

export interface RedisRevocationChannelOptions {
  /**
   * An ioredis client the host owns and closes. Revocations are published on it; listening takes
   * a connection of its own (`redis.duplicate()`), since a subscribed connection can do nothing else.
   */
  redis: Redis;
  /** The pub/sub channel every process of one deployment shares. Default `latchkey:session-revocations`. */
  channel?: string;
}

/**
 * Session revocations over Redis pub/sub, for `createLatchkey({ revocationChannel })`: when the
 * storage cannot announce its own (Postgres behind a pooler that cannot LISTEN), or to spread them
 * over Redis. Redis keeps no message for a subscriber that was away; the core catches up from
 * storage after every `restored`, so a message lost in a break costs nothing.
 */
export function redisRevocationChannel(options: RedisRevocationChannelOptions): RevocationChannel {
  const { redis, channel = 'latchkey:session-revocations' } = options;
  // One connection for every listener of this channel object, open while any listens.
  let current: Subscriber | undefined;
  const subscriber = () => {
    if (current) return current;
    const opening = subscriberOn(redis, channel);
    // Forgotten before any caller hears of the failure, so the next subscribe starts anew.
    opening.ready.catch(() => {
      current = undefined;
    });
    current = opening;
    return opening;
  };
  return {
    async subscribe(listener) {
      const shared = subscriber();
      shared.users += 1;
      // On failure the connection is gone and forgotten: nothing to count down.
      await shared.ready;
      shared.listeners.add(listener);
      let open = true;
      return {
        async close() {
          if (!open) return;
          open = false;
          shared.listeners.delete(listener);
          shared.users -= 1;
          if (shared.users > 0) return;
          current = undefined;
          shared.close();
        },
      };
    },
    async publish(revocations) {
      await Promise.all(encodeRevocations(revocations).map((message) => redis.publish(channel, message)));
    },
  };
}

type Subscriber = ReturnType<typeof subscriberOn>;

/**
 * A connection subscribed to `channel` that tells its listeners what it hears, `lost` once when
 * it breaks and `restored` once Redis has confirmed the subscription again. `ready` settles with
 * the first subscription; a failed start leaves nothing running.
 */
function subscriberOn(redis: Redis, channel: string) {
  const listeners = new Set<RevocationListener>();
  const sub = redis.duplicate({
    lazyConnect: true,
    // ioredis would resubscribe by itself, but its 'ready' comes before Redis has confirmed that
    // (before it even sends SUBSCRIBE), and a refused re-SUBSCRIBE of its own is a promise no one
    // holds: an unhandled rejection, which ends a Node process. Subscribing here gives `restored`
    // the confirmation to wait for and the refusal a retry.
    autoResubscribe: false,
    retryStrategy: neverGivingUp(redis.options.retryStrategy),
  });
  let subscribed = false;
  // The last error seen: 'close' carries none, and `lost` should say why.
  let cause: unknown;
  const tell = (call: (listener: RevocationListener) => void) => {
    for (const listener of listeners) call(listener);
  };

  // Also keeps ioredis from printing every connection error to the console.
  sub.on('error', (err: unknown) => {
    cause = err;
  });
  sub.on('message', (_channel: string, text: string) => {
    const revocations = decodeRevocations(text);
    tell((listener) => listener.revoked(revocations));
  });
  // Every broken connection closes, and so does each failed reconnect: `lost` is told once.
  sub.on('close', () => {
    if (!subscribed) return;
    subscribed = false;
    const err = cause ?? new Error('The Redis connection for session revocations closed.');
    tell((listener) => listener.lost(err));
  });

  let refusals = 0;
  let retry: ReturnType<typeof setTimeout> | undefined;
  const resubscribe = async () => {
    try {
      await sub.subscribe(channel);
    } catch (err) {
      cause = err;
      // Refused on a connection still up (an ACL changed): nothing else would ask again. (A broken
      // connection's next 'ready' asks anyway.)
      refusals += 1;
      retry = setTimeout(
        () => {
          if (sub.status === 'ready') void resubscribe();
        },
        Math.min(250 * 2 ** refusals, 5_000),
      );
      retry.unref();
      return;
    }
    // Two can succeed: a SUBSCRIBE sent on a connection that broke is resent on the next one.
    if (subscribed) return;
    subscribed = true;
    cause = undefined;
    refusals = 0;
    tell((listener) => listener.restored());
  };

  const ready = (async () => {
    try {
      await sub.connect();
      await sub.subscribe(channel);
    } catch (err) {
      sub.disconnect();
      // connect() rejects with "Connection is closed."; the 'error' before it says why.
      throw cause ?? err;
    }
    subscribed = true;
    cause = undefined;
    // The first connection's 'ready' has passed: from here on, each one is a reconnect.
    sub.on('ready', () => void resubscribe());
  })();

  return {
    listeners,
    /** Listeners subscribed or still waiting for `ready`: the connection closes when none are left. */
    users: 0,
    ready,
    close() {
      clearTimeout(retry);
      // Not UNSUBSCRIBE and QUIT: they wait for replies a broken or reconnecting connection may
      // never send. Redis drops a subscriber whose socket closes all the same.
      sub.disconnect();
    },
  };
}

/**
 * The host's reconnect delays, but never giving up: the core reads storage for every jwt-mode
 * check until the channel is back, so it has to come back by itself.
 */
function neverGivingUp(host: RedisOptions['retryStrategy']) {
  return (times: number) => {
    const delay = host?.(times);
    return typeof delay === 'number' ? delay : Math.min(times * 200, 5_000);
  };
}
