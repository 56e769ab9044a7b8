import type pg from 'pg';
import { DEFAULT_CONNECTION_TIMEOUT_MS } from '../guarded-pool.js';
import type { Listen } from './shared-channel.js';

/** How the listening connection shows in pg_stat_activity. */
export const LISTEN_APPLICATION_NAME = 'latchkey-revocations';
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;

/**
 * LISTEN on real Postgres: a client of its own, made like the pool's clients (same settings, same
 * Client class), since a pooled one would be handed back and lose its LISTEN. When the connection
 * breaks it tells `lost` once, reconnects after 250 ms, doubling up to 5 s, LISTENs again and
 * tells `restored`. `close()` ends it for good, leaving no socket or timer behind.
 */
export function pgListen(pool: pg.Pool): Listen {
  const Client = (pool as unknown as { Client: typeof pg.Client }).Client;
  const options = pool.options;
  const config: pg.ClientConfig = {
    ...options,
    // pg-pool keeps the password off the enumerable keys; the spread would drop it.
    password: options.password,
    application_name: LISTEN_APPLICATION_NAME,
    // A connection that dies silently is noticed by TCP rather than never.
    keepAlive: true,
    connectionTimeoutMillis: options.connectionTimeoutMillis || DEFAULT_CONNECTION_TIMEOUT_MS,
  };

  return async (channel, handlers) => {
    let closed = false;
    // The client that is listening; the one connecting.
    let current: pg.Client | undefined;
    let connecting: pg.Client | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let retryMs = FIRST_RETRY_MS;

    const broken = (client: pg.Client, error: unknown) => {
      // A client still connecting fails its attempt instead; a closed one is ended on purpose.
      if (client !== current) return;
      current = undefined;
      client.end().catch(() => {});
      handlers.lost(error);
      retryLater();
    };

    /** A listening client, made `current`; rejects when it cannot connect and LISTEN. */
    const connect = async (): Promise<void> => {
      const client = new Client(config);
      connecting = client;
      // Set when the connection breaks, even before it is current: a break that comes with the
      // LISTEN's answer fails this attempt rather than leaving a dead client current.
      let failure: unknown;
      const onBreak = (error: unknown) => {
        failure ??= error;
        broken(client, error);
      };
      client.on('notification', (n) => handlers.message(n.payload ?? ''));
      client.on('error', onBreak);
      client.on('end', () => onBreak(new Error('Latchkey: the revocation LISTEN connection ended.')));
      try {
        await client.connect();
        await client.query(`listen "${channel}"`);
        if (failure !== undefined) throw failure;
        current = client;
      } catch (err) {
        client.end().catch(() => {});
        throw err;
      } finally {
        if (connecting === client) connecting = undefined;
      }
    };

    const retryLater = () => {
      timer = setTimeout(reconnect, retryMs);
      retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
    };

    const reconnect = async () => {
      timer = undefined;
      try {
        await connect();
      } catch {
        // Closing ends the client it was connecting: that failure is the end, not a reason to retry.
        if (!closed) retryLater();
        return;
      }
      retryMs = FIRST_RETRY_MS;
      handlers.restored();
    };

    await connect();
    return {
      async close() {
        closed = true;
        clearTimeout(timer);
        const open = [current, connecting];
        current = undefined;
        await Promise.all(open.map((client) => client?.end().catch(() => {})));
      },
    };
  };
}
