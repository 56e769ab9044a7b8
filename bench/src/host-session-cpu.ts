import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readOutbox } from '@latchkey/senders';
import { type Child, startChild } from './child.js';
import { measure, type Target } from './measure.js';

/**
 * Server CPU time per request (µs) for the host-session and API hot-path rows: on a loaded
 * machine, throughput ratios swing with the neighbours' load, the CPU a server spends on each
 * request much less. Reads the server process's utime+stime from /proc (Linux only), and with
 * `DATABASE_URL` set, the Postgres CPU per request too: utime+stime of the backends connected to
 * that database (their process titles name it), summed per process so a backend that starts or
 * ends during a row counts for its part. Postgres shares the machine with the server, so its CPU
 * counts as much. `BENCH_CPU_REQUESTS` (default 20000) requests per row, 50 connections.
 *
 * `BENCH_BASE=<another checkout>` (e.g. /work/main) also starts that checkout's API server and
 * host app, on `BENCH_BASE_DATABASE_URL` (default: the same database), and measures their rows
 * as `… (base)` in the same rounds, interleaved: the build before and after side by side.
 */
const requests = Number(process.env.BENCH_CPU_REQUESTS ?? 20_000);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY, 'i') : undefined;
const ticksPerSecond = 100;

const cpuSeconds = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
};

const databaseName = (url: string | undefined) => (url ? new URL(url).pathname.slice(1) : undefined);

/** CPU seconds of each Postgres backend whose process title names one of `databases`, by pid. */
function postgresCpu(databases: string[]): Map<number, number> {
  const byPid = new Map<number, number>();
  if (databases.length === 0) return byPid;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const title = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (!title.startsWith('postgres:') || !databases.some((db) => title.includes(` ${db} `))) continue;
      byPid.set(Number(entry), cpuSeconds(Number(entry)));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return byPid;
}

const postgresDelta = (before: Map<number, number>, after: Map<number, number>) => {
  let sum = 0;
  for (const [pid, cpu] of after) sum += cpu - (before.get(pid) ?? 0);
  return sum;
};

const base = process.env.BENCH_BASE;
const baseDatabaseUrl = process.env.BENCH_BASE_DATABASE_URL ?? process.env.DATABASE_URL;
const databases = [
  ...new Set([databaseName(process.env.DATABASE_URL), base ? databaseName(baseDatabaseUrl) : undefined]),
].filter((db): db is string => db !== undefined);

/**
 * The API server and the host app of one checkout (this one, or `tree`), with a signed-in session,
 * and their rows named with `suffix`.
 */
async function startBuild(tree: string | undefined, suffix: string, env: NodeJS.ProcessEnv) {
  const entry = (file: string) => (tree ? path.join(tree, 'bench', 'src', file) : `./${file}`);
  const dataDir = await mkdtemp(path.join(tmpdir(), 'latchkey-bench-cpu-'));
  const server = await startChild<{ url: string; secret_key: string; public_token: string }>(
    entry('serve.ts'),
    [],
    { ...env, LATCHKEY_DATA_DIR: dataDir, PORT: '0' },
  );
  const host = await startChild<{
    url: string;
    session_jwt: string;
    session_token: string;
    organization_session_jwt: string;
  }>(entry('host-session-server.ts'), [], env);
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
  const run = `${Date.now().toString(36)}${suffix.length}`;
  const sent = { otp: 0, link: 0, ceiling: 0 };
  const rows: Array<[Target, Child<unknown>]> = [
    // The host process's own route with no middleware, the same bearer header: what embedding costs.
    [
      {
        name: `host no middleware${suffix}`,
        url: `${host.info.url}/plain`,
        headers: { authorization: `Bearer ${host.info.session_jwt}` },
      },
      host,
    ],
    [
      {
        name: `host jwt mode${suffix}`,
        url: `${host.info.url}/jwt/me`,
        headers: { authorization: `Bearer ${host.info.session_jwt}` },
      },
      host,
    ],
    [
      {
        name: `host token mode${suffix}`,
        url: `${host.info.url}/token/me`,
        headers: { authorization: `Bearer ${host.info.session_token}` },
      },
      host,
    ],
    [
      {
        name: `host jwt mode, organization permission${suffix}`,
        url: `${host.info.url}/jwt/invoices`,
        headers: { authorization: `Bearer ${host.info.organization_session_jwt}` },
      },
      host,
    ],
    [{ name: `GET /v1/health${suffix}`, url: `${url}/v1/health` }, server],
    // Sends to new addresses (issue 38's "Postgres CPU per send"): a user, a contact and a code
    // or link each, and the rate-limit windows every send counts.
    [
      {
        name: `send a passcode to a new address${suffix}`,
        url: `${url}/v1/auth/otps/email/login_or_create`,
        method: 'POST',
        headers: publicKey,
        nextBody: () => ({ email: `cpu.otp.${run}.${sent.otp++}@example.com` }),
      },
      server,
    ],
    [
      {
        name: `send a magic link to a new address${suffix}`,
        url: `${url}/v1/auth/magic_links/email/login_or_create`,
        method: 'POST',
        headers: publicKey,
        nextBody: () => ({ email: `cpu.link.${run}.${sent.link++}@example.com` }),
      },
      server,
    ],
    // The send's floor (sign-in-ceiling.ts): the same two statements' worth of rows, none of
    // Latchkey's request path. Where the send's CPU goes beyond it is Latchkey's own.
    ...(process.env.DATABASE_URL
      ? [
          [
            {
              name: `magic-link send ceiling${suffix}`,
              url: `${host.info.url}/ceiling/magic-link-send`,
              method: 'POST',
              nextBody: () => ({ email: `cpu.ceiling.${run}.${sent.ceiling++}@example.com` }),
            },
            host,
          ] as [Target, Child<unknown>],
        ]
      : []),
    [
      {
        name: `authenticate token${suffix}`,
        url: `${url}/v1/auth/sessions/authenticate`,
        method: 'POST',
        headers: publicKey,
        body: { session_token: session.session_token },
      },
      server,
    ],
    [
      {
        name: `authenticate JWT${suffix}`,
        url: `${url}/v1/auth/sessions/authenticate`,
        method: 'POST',
        headers: publicKey,
        body: { session_jwt: session.session_jwt },
      },
      server,
    ],
  ];
  return {
    rows,
    async stop() {
      await Promise.all([server.stop(), host.stop()]);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

const bare = await startChild<{ url: string }>('./bare-servers.ts', ['express']);
const builds = [await startBuild(undefined, '', {})];
if (base) builds.push(await startBuild(base, ' (base)', { DATABASE_URL: baseDatabaseUrl }));
try {
  // This build's row, then the base build's same row: each pair measured back to back.
  const rows: Array<[Target, Child<unknown>]> = [
    [{ name: 'bare Express', url: `${bare.info.url}/bare` }, bare],
  ];
  for (const [i, row] of builds[0]!.rows.entries()) rows.push(row, ...builds.slice(1).map((b) => b.rows[i]!));
  // Rows interleaved over several rounds, so a neighbour's burst of load spreads over all rows.
  const rounds = Number(process.env.BENCH_CPU_ROUNDS ?? 4);
  const chosen = rows.filter(([t]) => !only || t.name === 'bare Express' || only.test(t.name));
  for (const [target] of chosen) await measure({ ...target, amount: 3000 }, { duration: 1, connections });
  const sums = new Map<
    string,
    { cpu: number; pgCpu: number; total: number; seconds: number; non2xx: number }
  >();
  for (let round = 0; round < rounds; round++) {
    // Every other round backwards, so no row always follows the same one.
    for (const [target, child] of round % 2 === 0 ? chosen : [...chosen].reverse()) {
      const pid = child.process.pid!;
      const before = cpuSeconds(pid);
      const pgBefore = postgresCpu(databases);
      const started = performance.now();
      const m = await measure(
        { ...target, amount: Math.round(requests / rounds) },
        { duration: 1, connections },
      );
      const sum = sums.get(target.name) ?? { cpu: 0, pgCpu: 0, total: 0, seconds: 0, non2xx: 0 };
      sum.cpu += cpuSeconds(pid) - before;
      sum.pgCpu += postgresDelta(pgBefore, postgresCpu(databases));
      sum.total += m.total;
      sum.seconds += (performance.now() - started) / 1000;
      sum.non2xx += m.non_2xx;
      sums.set(target.name, sum);
    }
  }
  const usOf = (name: string) => (sums.get(name)!.cpu * 1e6) / sums.get(name)!.total;
  const table: Record<string, unknown> = {};
  for (const [name, sum] of sums) {
    const pgUs = (sum.pgCpu * 1e6) / sum.total;
    table[name] = {
      'cpu µs/req': Math.round(usOf(name)),
      'bare ÷ this (cpu)': Number((usOf('bare Express') / usOf(name)).toFixed(3)),
      ...(databases.length > 0
        ? { 'pg cpu µs/req': Math.round(pgUs), 'server+pg µs/req': Math.round(usOf(name) + pgUs) }
        : {}),
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
  await Promise.all([bare.stop(), ...builds.map((b) => b.stop())]);
}
