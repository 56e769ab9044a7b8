import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readOutbox } from '@latchkey/senders';
import { type Child, startChild } from './child.js';
import { measure, type Target } from './measure.js';

/**
 * Server CPU time per request (µs) for the host-session and API hot-path rows: on a loaded
 * machine, throughput ratios swing with the neighbours' load, the CPU a server spends on each
 * request much less. Reads the server process's utime+stime from /proc (Linux only).
 * `BENCH_CPU_REQUESTS` (default 20000) requests per row, 50 connections.
 */
const requests = Number(process.env.BENCH_CPU_REQUESTS ?? 20_000);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY, 'i') : undefined;
const ticksPerSecond = 100;

const cpuSeconds = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
};

const dataDir = await mkdtemp(path.join(tmpdir(), 'latchkey-bench-cpu-'));
const server = await startChild<{ url: string; secret_key: string; public_token: string }>('./serve.ts', [], {
  LATCHKEY_DATA_DIR: dataDir,
  PORT: '0',
});
const bare = await startChild<{ url: string }>('./bare-servers.ts', ['express']);
const host = await startChild<{ url: string; session_jwt: string; session_token: string }>(
  './host-session-server.ts',
  [],
);
try {
  const { url, secret_key, public_token } = server.info;
  const call = async (route: string, body: unknown, key: string) => {
    const res = await fetch(`${url}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${route} → ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, string>>;
  };
  const login = await call('/v1/auth/otps/email/login_or_create', { email: 'cpu@example.com' }, secret_key);
  const code = (await readOutbox(path.join(dataDir, 'outbox.jsonl'))).at(-1)!.code;
  const session = await call(
    '/v1/auth/otps/verify',
    { method_id: login.method_id, otp: code, session_expires_in: 600 },
    secret_key,
  );
  const publicKey = { authorization: `Bearer ${public_token}` };
  const rows: Array<[Target, Child<unknown>]> = [
    [{ name: 'bare Express', url: `${bare.info.url}/bare` }, bare],
    // The host process's own route with no middleware, the same bearer header: what embedding costs.
    [
      {
        name: 'host no middleware',
        url: `${host.info.url}/plain`,
        headers: { authorization: `Bearer ${host.info.session_jwt}` },
      },
      host,
    ],
    [
      {
        name: 'host jwt mode',
        url: `${host.info.url}/jwt/me`,
        headers: { authorization: `Bearer ${host.info.session_jwt}` },
      },
      host,
    ],
    [
      {
        name: 'host token mode',
        url: `${host.info.url}/token/me`,
        headers: { authorization: `Bearer ${host.info.session_token}` },
      },
      host,
    ],
    [{ name: 'GET /v1/health', url: `${url}/v1/health` }, server],
    [
      {
        name: 'authenticate token',
        url: `${url}/v1/auth/sessions/authenticate`,
        method: 'POST',
        headers: publicKey,
        body: { session_token: session.session_token },
      },
      server,
    ],
    [
      {
        name: 'authenticate JWT',
        url: `${url}/v1/auth/sessions/authenticate`,
        method: 'POST',
        headers: publicKey,
        body: { session_jwt: session.session_jwt },
      },
      server,
    ],
  ];
  // Rows interleaved over several rounds, so a neighbour's burst of load spreads over all rows.
  const rounds = Number(process.env.BENCH_CPU_ROUNDS ?? 4);
  const chosen = rows.filter(([t]) => !only || t.name === 'bare Express' || only.test(t.name));
  for (const [target] of chosen) await measure({ ...target, amount: 3000 }, { duration: 1, connections });
  const sums = new Map<string, { cpu: number; total: number; seconds: number; non2xx: number }>();
  for (let round = 0; round < rounds; round++) {
    for (const [target, child] of chosen) {
      const pid = child.process.pid!;
      const before = cpuSeconds(pid);
      const started = performance.now();
      const m = await measure(
        { ...target, amount: Math.round(requests / rounds) },
        { duration: 1, connections },
      );
      const sum = sums.get(target.name) ?? { cpu: 0, total: 0, seconds: 0, non2xx: 0 };
      sum.cpu += cpuSeconds(pid) - before;
      sum.total += m.total;
      sum.seconds += (performance.now() - started) / 1000;
      sum.non2xx += m.non_2xx;
      sums.set(target.name, sum);
    }
  }
  const usOf = (name: string) => (sums.get(name)!.cpu * 1e6) / sums.get(name)!.total;
  const table: Record<string, unknown> = {};
  for (const [name, sum] of sums) {
    table[name] = {
      'cpu µs/req': Math.round(usOf(name)),
      'bare ÷ this (cpu)': Number((usOf('bare Express') / usOf(name)).toFixed(3)),
      'req/s': Math.round(sum.total / sum.seconds),
      'vs bare (req/s)': Number(
        (
          sum.total /
          sum.seconds /
          (sums.get('bare Express')!.total / sums.get('bare Express')!.seconds)
        ).toFixed(3),
      ),
      'non-2xx': sum.non2xx,
    };
  }
  console.table(table);
} finally {
  await Promise.all([server.stop(), bare.stop(), host.stop()]);
  await rm(dataDir, { recursive: true, force: true });
}
