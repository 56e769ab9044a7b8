import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import type { RevocationChannel, RevocationListener, SessionRevocation, Storage } from '@latchkey/core';
import pg from 'pg';
import { kyselyStorage, migrateToLatest, postgresStorage } from '../src/index.js';
import { DATABASE_URL } from './targets.js';

/**
 * One database, on which to open as many storages as a test wants (each on a pool of its own on
 * Postgres, as separate processes would have), in one schema or several, and raw SQL beside them.
 */
export interface SharedDatabase {
  name: 'pglite' | 'postgres';
  open(schema: string, options?: { migrate?: boolean; url?: string }): Promise<Storage>;
  sql<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
  migrate(schema: string): Promise<void>;
  /** The channel the trigger announces on for `schema`. */
  channelOf(schema: string): Promise<string>;
  /** Closes every storage opened, drops their schemas (Postgres) and ends the database. */
  close(): Promise<void>;
}

export async function sharedDatabase(name: 'pglite' | 'postgres'): Promise<SharedDatabase> {
  const storages: Storage[] = [];
  const schemas = new Set<string>();
  let sql: SharedDatabase['sql'];
  let end: () => Promise<void>;
  let open: (schema: string, options: { migrate?: boolean; url?: string }) => Promise<Storage>;
  let migrate: (schema: string) => Promise<unknown>;
  if (name === 'pglite') {
    const pglite = await PGlite.create();
    sql = async (text, params) => (await pglite.query(text, params)).rows as never;
    migrate = (schema) => migrateToLatest({ pglite, schema });
    open = (schema, { migrate }) => kyselyStorage({ pglite, schema, migrate: migrate ?? true });
    end = () => pglite.close();
  } else {
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    sql = async (text, params) => (await admin.query(text, params)).rows;
    migrate = async (schema) => {
      const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
      await migrateToLatest({ pool, schema }).finally(() => pool.end());
    };
    open = (schema, { migrate, url }) =>
      postgresStorage(url ?? DATABASE_URL!, { schema, migrate: migrate ?? true, pool: { max: 4 } });
    end = async () => {
      for (const schema of schemas)
        await admin.query(`drop schema if exists "${schema.replaceAll('"', '""')}" cascade`);
      await admin.end();
    };
  }
  return {
    name,
    async open(schema, options = {}) {
      schemas.add(schema);
      const storage = await open(schema, options);
      storages.push(storage);
      return storage;
    },
    sql,
    async migrate(schema) {
      await migrate(schema);
    },
    async channelOf(schema) {
      const [row] = await sql<{ oid: string }>(
        `select oid::text as oid from pg_namespace where nspname = $1`,
        [schema],
      );
      return `latchkey_session_revocations_${row!.oid}`;
    },
    async close() {
      for (const storage of storages) await storage.close();
      await end();
    },
  };
}

/** PGlite always; Postgres when DATABASE_URL is set. */
export const databases: Array<'pglite' | 'postgres'> = DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A listener that keeps what it is told, in order. */
export function recordingListener() {
  const heard: SessionRevocation[] = [];
  const events: string[] = [];
  const listener: RevocationListener = {
    revoked: (revocations) => void heard.push(...revocations),
    lost: () => void events.push('lost'),
    restored: () => void events.push('restored'),
  };
  return { listener, heard, events };
}

/** `channel` as it is, keeping every revocation it delivers: what arrived by the channel, not by catch-up. */
export function spiedChannel(channel: RevocationChannel) {
  const heard = new Set<string>();
  const spied: RevocationChannel = {
    subscribe: (listener) =>
      channel.subscribe({
        revoked(revocations) {
          for (const r of revocations) heard.add(r.session_id);
          listener.revoked(revocations);
        },
        lost: (err) => listener.lost(err),
        restored: () => listener.restored(),
      }),
  };
  return { channel: spied, heard };
}

/**
 * A TCP proxy to `target` on a loopback port: `cut()` drops every connection and refuses new
 * ones (a network partition the client sees at once); `restore()` accepts again on the same port.
 */
export async function tcpProxy(target: { host: string; port: number }) {
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  };
  const accept = (client: Socket) => {
    const upstream = tcpConnect(target.port, target.host);
    track(client);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  };
  const listen = async (port: number) => {
    const server = createServer(accept);
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return server;
  };
  let server: Server | undefined = await listen(0);
  const { port } = server.address() as { port: number };
  return {
    port,
    cut() {
      server?.close();
      server = undefined;
      for (const socket of sockets) socket.destroy();
    },
    async restore() {
      server = await listen(port);
    },
    close() {
      this.cut();
    },
  };
}
