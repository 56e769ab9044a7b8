import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type Child, startChild } from './child.js';
import { type ExplainedQuery, explainCaptured } from './explain.js';
import { type Measurement, measure, type Target } from './measure.js';
import { type SeedTarget, seedUsers, settle } from './seed-users.js';

/**
 * `BENCH_GROWTH=1 npm run bench`: what the same endpoints cost as the App grows. Runs them on a
 * database holding only the benchmark's own rows, then with 10k users, then (Postgres only) with
 * 1M users, each seeded straight into the tables with SQL; reports req/s and p99 at each size and
 * the ratio to the empty run. Writes bench/results/growth.json.
 */
const duration = Number(process.env.BENCH_DURATION ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const databaseUrl = process.env.DATABASE_URL || undefined;
const rounds = Number(process.env.BENCH_GROWTH_ROUNDS ?? 2);
// A million rows on PGlite (one WASM thread inside the server) takes too long to be useful.
const sizes = (process.env.BENCH_GROWTH_SIZES ?? (databaseUrl ? '10000,1000000' : '10000'))
  .split(',')
  .map(Number);

interface ServerInfo {
  url: string;
  storage: string;
  app_id: string;
  secret_key: string;
  public_token: string;
}

/** One row's rounds as one: mean rate and counts, the worse p99. */
function meanOf(rounds: Measurement[]): Measurement {
  const mean = (pick: (m: Measurement) => number) =>
    Math.round(rounds.reduce((sum, m) => sum + pick(m), 0) / rounds.length);
  return {
    ...rounds[0]!,
    requests_per_second: mean((m) => m.requests_per_second),
    p50_ms: mean((m) => m.p50_ms),
    p99_ms: Math.max(...rounds.map((m) => m.p99_ms)),
    errors: rounds.reduce((sum, m) => sum + m.errors, 0),
    non_2xx: rounds.reduce((sum, m) => sum + m.non_2xx, 0),
    total: rounds.reduce((sum, m) => sum + m.total, 0),
  };
}

const dataDir = await mkdtemp(path.join(tmpdir(), 'latchkey-growth-'));
// On Postgres, a schema of its own: the tables hold this run's rows only, and go at the end.
const schema = databaseUrl ? `bench_growth_${randomBytes(4).toString('hex')}` : undefined;
const env = {
  LATCHKEY_DATA_DIR: dataDir,
  PORT: '0',
  BENCH_CAPTURE_SQL: '1',
  ...(schema ? { LATCHKEY_DB_SCHEMA: schema } : {}),
};
const seedTarget: SeedTarget = databaseUrl && schema ? { databaseUrl, schema } : { pgliteDir: dataDir };

let server: Child<ServerInfo> = await startChild<ServerInfo>('./serve.ts', [], env);
const app = server.info;
const restart = async () => {
  server = await startChild<ServerInfo>('./serve.ts', [], { ...env, BENCH_APP: JSON.stringify(app) });
};

try {
  const call = async (method: string, route: string, body?: unknown, key = app.secret_key) => {
    const res = await fetch(`${server.info.url}${route}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`${method} ${route} → ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, string>>;
  };
  console.log(`Growth bench on ${app.storage}: sizes 0, ${sizes.join(', ')} users`);
  const user = await call('POST', '/v1/auth/users', { email: 'growth.user@example.com' });
  await call('POST', '/v1/wallets/create', { user_id: user.user_id, wallet_type: 'ethereum' });
  const { readOutbox } = await import('@latchkey/senders');
  const login = await call('POST', '/v1/auth/otps/email/login_or_create', {
    email: 'growth.session@example.com',
  });
  const code = (await readOutbox(path.join(dataDir, 'outbox.jsonl'))).at(-1)!.code;
  const session = await call('POST', '/v1/auth/otps/verify', {
    method_id: login.method_id,
    otp: code,
    session_expires_in: 600,
  });

  let created = 0;
  const targets = (): Target[] => {
    const url = server.info.url;
    const secret = { authorization: `Bearer ${app.secret_key}` };
    const publicKey = { authorization: `Bearer ${app.public_token}` };
    const run = randomBytes(3).toString('hex');
    return [
      { name: 'GET users/{id}', url: `${url}/v1/auth/users/${user.user_id}`, headers: secret },
      {
        name: 'POST users (new email)',
        url: `${url}/v1/auth/users`,
        method: 'POST',
        headers: secret,
        nextBody: () => ({ email: `growth.${run}.${created++}@example.com` }),
      },
      {
        name: 'POST sessions/authenticate (token)',
        url: `${url}/v1/auth/sessions/authenticate`,
        method: 'POST',
        headers: publicKey,
        body: { session_token: session.session_token },
      },
      {
        name: 'POST otps/email/login_or_create (known email)',
        url: `${url}/v1/auth/otps/email/login_or_create`,
        method: 'POST',
        headers: publicKey,
        body: { email: 'growth.user@example.com' },
      },
      {
        name: 'GET wallets/list?user_id',
        url: `${url}/v1/wallets/list?user_id=${user.user_id}`,
        headers: secret,
      },
    ];
  };
  /**
   * Every row, `rounds` times, each round starting one row further on (so no row always runs
   * first after a load); a row's figure is the mean of its rounds.
   */
  const measureAll = async (label: string, offset: number) => {
    console.log(`  ${label} …`);
    const list = targets();
    const runsOf = list.map(() => [] as Measurement[]);
    for (let round = 0; round < rounds; round++) {
      for (let j = 0; j < list.length; j++) {
        const i = (offset + round + j) % list.length;
        runsOf[i]!.push(await measure(list[i]!, { duration, connections }));
      }
    }
    return runsOf.map(meanOf);
  };

  /** VACUUM ANALYZE and a CHECKPOINT, so no autovacuum or checkpoint runs during the measurement. */
  const settleDatabase = async () => {
    if (!databaseUrl) await server.stop();
    await settle(seedTarget);
    if (!databaseUrl) await restart();
  };

  // The first run would otherwise also pay for a cold JIT and cold caches.
  await measureAll('warm-up (not reported)', 0);
  await settleDatabase();
  const runs: Array<{ users: number; results: Measurement[] }> = [
    { users: 0, results: await measureAll('empty', 0) },
  ];
  let seeded = 0;
  let explained: Array<{ row: string; queries: ExplainedQuery[] }> = [];
  for (const [index, size] of sizes.entries()) {
    const started = Date.now();
    // PGlite belongs to the server process: stop it to write, start it again after.
    if (!databaseUrl) await server.stop();
    await seedUsers(seedTarget, app.app_id, seeded, size);
    if (!databaseUrl) await restart();
    console.log(`  seeded ${size} users in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    await settleDatabase();
    seeded = size;
    runs.push({ users: size, results: await measureAll(`${size} users`, index + 1) });
    if (databaseUrl && schema && index === sizes.length - 1) {
      explained = await explainCaptured(server.process, targets(), { databaseUrl, schema });
    }
  }

  const empty = runs[0]!.results;
  const table = Object.fromEntries(
    empty.map((base, i) => [
      base.name,
      Object.fromEntries(
        runs.flatMap((run) => {
          const r = run.results[i]!;
          const tag =
            run.users === 0 ? 'empty' : run.users >= 1e6 ? `${run.users / 1e6}M` : `${run.users / 1e3}k`;
          const ratio = Number((r.requests_per_second / base.requests_per_second).toFixed(3));
          return [
            [`${tag} req/s`, r.requests_per_second],
            [`${tag} p99`, r.p99_ms],
            ...(run.users === 0 ? [] : [[`${tag} ratio`, ratio]]),
            ...(r.non_2xx || r.errors ? [[`${tag} failed`, r.non_2xx + r.errors]] : []),
          ];
        }),
      ),
    ]),
  );
  console.log(
    `\nLatchkey growth bench: ${app.storage}, ${connections} connections, ${duration} s per endpoint\n`,
  );
  console.table(table);
  await writeFile(
    new URL('../results/growth.json', import.meta.url),
    `${JSON.stringify({ at: new Date().toISOString(), storage: app.storage, node: process.version, connections, duration_seconds: duration, rounds, runs, explained }, null, 2)}\n`,
  );
  if (explained.length > 0) {
    const text = explained
      .map(({ row, queries }) =>
        [
          `### ${row}`,
          ...queries.map((q) => `\n\`\`\`sql\n${q.sql}\n\`\`\`\n\n\`\`\`\n${q.plan}\n\`\`\``),
        ].join('\n'),
      )
      .join('\n\n');
    await writeFile(new URL('../results/growth-plans.md', import.meta.url), `${text}\n`);
    console.log('Plans at the largest size written to bench/results/growth-plans.md');
  }
  console.log('Written to bench/results/growth.json');
} finally {
  await server.stop();
  if (databaseUrl && schema) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(`drop schema if exists "${schema}" cascade`);
    await client.end();
  }
  await rm(dataDir, { recursive: true, force: true });
}
