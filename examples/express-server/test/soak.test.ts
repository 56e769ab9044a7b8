import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { open, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createLatchkey } from '@latchkey/core';
import { postgresStorage } from '@latchkey/kysely-postgres';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { DATABASE_URL, type StorageTarget, storageTarget } from './database.js';
import {
  newDataDir,
  removeDataDirs,
  type SpawnedServer,
  spawnServer,
  stopAllServers,
} from './spawn-server.js';

/**
 * The soak test (docs/operations.md), only with LATCHKEY_SOAK=1 and DATABASE_URL: 4 server
 * processes on one Postgres under mixed load for LATCHKEY_SOAK_SECONDS (60), the database
 * restarted halfway through. It restarts this machine's Postgres cluster: never run it where
 * others share that cluster.
 */
const SOAK = process.env.LATCHKEY_SOAK === '1';
const SECONDS = Number(process.env.LATCHKEY_SOAK_SECONDS || 60);
const WORKERS = Number(process.env.LATCHKEY_SOAK_WORKERS || 24);
const PROCESSES = 4;
const RESTART_COMMAND =
  process.env.LATCHKEY_SOAK_RESTART ??
  'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main restart';

type Outcome = { status: number; body: any; error_type?: string };

interface Tally {
  byStatus: Map<string, number>;
  /** Answers that break the rule: a 500, an undocumented status, a transport error. */
  bad: string[];
}

const rss = (pid: number) =>
  readFile(`/proc/${pid}/status`, 'utf8').then(
    (s) => Math.round(Number(/VmRSS:\s+(\d+)/.exec(s)?.[1] ?? 0) / 1024),
    () => 0,
  );

/** Reads passcodes from the shared outbox as it grows, remembering where it stopped. */
function outboxCodes(file: string) {
  const codes = new Map<string, string>();
  let offset = 0;
  let partial = '';
  return async (to: string): Promise<string | undefined> => {
    if (!codes.has(to)) {
      const handle = await open(file, 'r');
      try {
        const { size } = await handle.stat();
        if (size > offset) {
          const buffer = Buffer.alloc(size - offset);
          await handle.read(buffer, 0, buffer.length, offset);
          offset = size;
          const lines = (partial + buffer.toString('utf8')).split('\n');
          partial = lines.pop() ?? '';
          for (const line of lines) {
            if (!line.trim()) continue;
            const m = JSON.parse(line) as { to: string; code?: string };
            if (m.code) codes.set(m.to, m.code);
          }
        }
      } finally {
        await handle.close();
      }
    }
    return codes.get(to);
  };
}

describe.skipIf(!SOAK || !DATABASE_URL)('soak: 4 processes on one Postgres, restarted mid-run', () => {
  let target: StorageTarget | undefined;
  afterAll(async () => {
    await stopAllServers();
    await target?.dispose();
    await removeDataDirs();
  });

  it(
    'never answers 500 (only the documented 503 during the outage), keeps every acknowledged write, holds its memory',
    async () => {
      target = storageTarget();
      const env = {
        ...target.env,
        LATCHKEY_SECRET: randomBytes(32).toString('base64url'),
        LATCHKEY_VAULT_KEY: randomBytes(32).toString('base64url'),
        LATCHKEY_REDIS_URL: undefined,
      };
      const dataDir = await newDataDir();
      // The demo App, with its limits out of the way: the load comes from one IP.
      const storage = await postgresStorage(DATABASE_URL!, { migrate: true, schema: target.schema! });
      const high = { limit: 1_000_000 };
      const keys = await createLatchkey({ storage, secret: env.LATCHKEY_SECRET })
        .apps.create({
          name: 'soak',
          settings: {
            rate_limits: {
              per_app: high,
              per_destination: high,
              public_routes: { verify: high, send: high },
            },
          },
        })
        .finally(() => storage.close());
      await writeFile(
        path.join(dataDir, 'demo-app.json'),
        JSON.stringify({ app_id: keys.app_id, secret_key: keys.secret_key, public_token: keys.public_token }),
      );
      const servers: SpawnedServer[] = [];
      for (let i = 0; i < PROCESSES; i++) servers.push(await spawnServer(dataDir, env));
      const codeFor = outboxCodes(path.join(dataDir, 'outbox.jsonl'));

      const acknowledged = {
        users: [] as Array<{ id: string; email: string }>,
        sessions: [] as Array<{ id: string; token: string }>,
        wallets: [] as Array<{ id: string; user_id: string }>,
      };
      const tally: Tally = { byStatus: new Map(), bad: [] };
      let outage = false;
      const record = (op: string, r: Outcome) => {
        const label = r.status === 200 ? '200' : `${r.status} ${r.error_type ?? ''}`.trim();
        tally.byStatus.set(label, (tally.byStatus.get(label) ?? 0) + 1);
        const documented503 =
          r.status === 503 && (r.error_type === 'storage_unavailable' || r.error_type === 'request_timeout');
        if (r.status !== 200 && !documented503)
          tally.bad.push(`${op}: ${r.status} ${JSON.stringify(r.body)}`);
      };
      const request = async (op: string, method: string, route: string, key: string, body?: unknown) => {
        const server = servers[Math.floor(Math.random() * servers.length)]!;
        let r: Outcome;
        try {
          const res = await fetch(`${server.url}${route}`, {
            method,
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          });
          const parsed = await res.json();
          r = { status: res.status, body: parsed, error_type: parsed?.error_type };
        } catch (err) {
          r = { status: 0, body: String(err), error_type: outage ? 'transport' : undefined };
        }
        record(op, r);
        return r;
      };
      const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)];
      const unique = () => `${Date.now().toString(36)}${randomBytes(4).toString('hex')}`;

      const operations: Array<() => Promise<void>> = [
        async () => {
          const email = `soak-${unique()}@example.com`;
          const r = await request('users create', 'POST', '/v1/auth/users', keys.secret_key, { email });
          if (r.status === 200) acknowledged.users.push({ id: r.body.user_id, email });
        },
        async () => {
          const u = pick(acknowledged.users);
          if (u) await request('users get', 'GET', `/v1/auth/users/${u.id}`, keys.secret_key);
        },
        async () => {
          const email = `soak-otp-${unique()}@example.com`;
          const sent = await request(
            'otp login_or_create',
            'POST',
            '/v1/auth/otps/email/login_or_create',
            keys.public_token,
            { email },
          );
          if (sent.status !== 200) return;
          const code = await codeFor(email);
          expect(code, `no passcode in the outbox for ${email}`).toBeDefined();
          const verified = await request('otp verify', 'POST', '/v1/auth/otps/verify', keys.public_token, {
            method_id: sent.body.method_id,
            otp: code,
            session_expires_in: 60,
          });
          if (verified.status === 200) {
            acknowledged.sessions.push({ id: verified.body.session.id, token: verified.body.session_token });
            acknowledged.users.push({ id: verified.body.user_id, email });
          }
        },
        async () => {
          const s = pick(acknowledged.sessions);
          if (s)
            await request(
              'sessions authenticate',
              'POST',
              '/v1/auth/sessions/authenticate',
              keys.public_token,
              {
                session_token: s.token,
              },
            );
        },
        async () => {
          const u = pick(acknowledged.users);
          if (!u) return;
          const wallet_type = pick(['ethereum', 'solana'] as const);
          const r = await request('wallets create', 'POST', '/v1/wallets/create', keys.secret_key, {
            user_id: u.id,
            wallet_type,
          });
          if (r.status === 200) acknowledged.wallets.push({ id: r.body.id, user_id: u.id });
        },
      ];

      // RSS of each process: at start, after warm-up, and every 5 s.
      const samples: Array<{ at: number; rss: number[] }> = [];
      const started = Date.now();
      const sample = async () =>
        samples.push({
          at: Math.round((Date.now() - started) / 1000),
          rss: await Promise.all(servers.map((s) => rss(s.child.pid!))),
        });
      await sample();
      const sampler = setInterval(() => void sample(), 5_000);

      const end = started + SECONDS * 1000;
      const restart = new Promise<{ atSeconds: number; tookMs: number; output: string }>(
        (resolve, reject) => {
          setTimeout(
            () => {
              const at = Date.now();
              outage = true;
              execFile('sh', ['-c', RESTART_COMMAND], { timeout: 120_000 }, (err, stdout, stderr) => {
                if (err) return reject(new Error(`restart failed: ${err.message} ${stderr}`));
                resolve({
                  atSeconds: Math.round((at - started) / 1000),
                  tookMs: Date.now() - at,
                  output: stdout + stderr,
                });
              });
            },
            (SECONDS * 1000) / 2,
          );
        },
      );
      const worker = async () => {
        while (Date.now() < end) await pick(operations)!();
      };
      await Promise.all(Array.from({ length: WORKERS }, worker));
      const restarted = await restart;
      clearInterval(sampler);
      await sample();

      // Everyone is back: each process answers a read again.
      for (const s of servers) {
        const deadline = Date.now() + 30_000;
        for (;;) {
          const res = await fetch(`${s.url}/v1/auth/users/${acknowledged.users[0]!.id}`, {
            headers: { authorization: `Bearer ${keys.secret_key}` },
          });
          if (res.status === 200) break;
          expect(res.status).toBe(503);
          expect(Date.now()).toBeLessThan(deadline);
          await new Promise((r) => setTimeout(r, 250));
        }
      }

      // Every acknowledged write is in the database.
      const client = new pg.Client({ connectionString: DATABASE_URL });
      await client.connect();
      const present = async (table: string, ids: string[]) => {
        const { rows } = await client.query(
          `select id from "${target!.schema}"."${table}" where id = any($1)`,
          [ids],
        );
        return new Set(rows.map((r: { id: string }) => r.id));
      };
      const users = await present(
        'users',
        acknowledged.users.map((u) => u.id),
      );
      const sessions = await present(
        'sessions',
        acknowledged.sessions.map((s) => s.id),
      );
      const wallets = await present(
        'wallets',
        acknowledged.wallets.map((w) => w.id),
      );
      const { rows: emails } = await client.query(
        `select address from "${target.schema}"."emails" where address = any($1)`,
        [acknowledged.users.map((u) => u.email)],
      );
      await client.end();

      const report = {
        seconds: SECONDS,
        workers: WORKERS,
        restart: restarted,
        answers: Object.fromEntries([...tally.byStatus].sort()),
        acknowledged: {
          users: acknowledged.users.length,
          sessions: acknowledged.sessions.length,
          wallets: acknowledged.wallets.length,
        },
        rss_mb: samples.map((s) => `${s.at}s: ${s.rss.join(' / ')}`),
      };
      console.log(`soak report:\n${JSON.stringify(report, null, 2)}`);

      expect(tally.bad.slice(0, 20)).toEqual([]);
      expect([...users].length).toBe(new Set(acknowledged.users.map((u) => u.id)).size);
      expect(new Set(emails.map((e: { address: string }) => e.address)).size).toBe(acknowledged.users.length);
      expect([...sessions].length).toBe(acknowledged.sessions.length);
      expect([...wallets].length).toBe(new Set(acknowledged.wallets.map((w) => w.id)).size);
      expect(acknowledged.users.length).toBeGreaterThan(100);
      // Memory: after warm-up (the first 10 s), no process grows by more than half or 96 MB.
      const warm = samples.find((s) => s.at >= 10) ?? samples[0]!;
      const last = samples.at(-1)!;
      servers.forEach((_, i) => {
        expect(last.rss[i]!, `process ${i} RSS ${warm.rss[i]} → ${last.rss[i]} MB`).toBeLessThan(
          Math.max(warm.rss[i]! * 1.5, warm.rss[i]! + 96),
        );
      });
      for (const s of servers) expect(await s.stop()).toEqual({ code: 0, signal: null });
    },
    (SECONDS + 240) * 1000,
  );
});
