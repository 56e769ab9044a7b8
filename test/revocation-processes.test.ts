import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Issue 34's two-process case, as the bench's revocation row runs it but as a test: two host
 * processes (`bench/src/revocation-host-server.ts`) on one Postgres, each checking JWTs in jwt mode
 * with its set of revoked sessions; a session revoked through A is refused by B within a second,
 * and afterwards neither accepts any revoked session. Postgres only: PGlite is one process's.
 */
const DATABASE_URL = process.env.DATABASE_URL;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const COUNT = 20;

interface Host {
  url: string;
  app_id: string;
  user_id: string;
  secret: string;
  state: string;
  child: ChildProcess;
}

async function startHost(dataDir: string, env: Record<string, string> = {}): Promise<Host> {
  const child = spawn(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', 'bench/src/revocation-host-server.ts'],
    {
      cwd: root,
      env: { ...process.env, DATABASE_URL, LATCHKEY_DATA_DIR: dataDir, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let errors = '';
  child.stderr?.on('data', (chunk) => {
    errors += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`host exited with ${code}: ${errors}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('{"url"')) resolve({ ...JSON.parse(line), child });
    });
  });
}

const post = async (url: string, body: unknown = {}) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { session_id: string; session_jwt: string };
};
const statusOf = async (host: Host, jwt: string) =>
  (await fetch(`${host.url}/jwt/me`, { headers: { authorization: `Bearer ${jwt}` } })).status;

describe.skipIf(!DATABASE_URL)('revocation across two host processes on one Postgres', () => {
  let dataDir: string;
  let a: Host;
  let b: Host;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'latchkey-revocation-processes-'));
    a = await startHost(dataDir);
    // B is another replica of the same deployment: the same App, user and secret.
    b = await startHost(dataDir, {
      BENCH_APP_ID: a.app_id,
      BENCH_USER_ID: a.user_id,
      BENCH_SECRET: a.secret,
    });
  }, 120_000);

  afterAll(async () => {
    for (const host of [a, b]) host?.child.kill('SIGTERM');
    await rm(dataDir, { recursive: true, force: true });
  });

  it(`B refuses each of ${COUNT} sessions revoked through A within a second, and none passes afterwards`, async () => {
    expect([a.state, b.state]).toEqual(['live', 'live']);
    const revoked: string[] = [];
    for (let i = 0; i < COUNT; i++) {
      const session = await post(`${a.url}/issue`);
      // B has verified the JWT (it is in B's cache of verified JWTs) before the revocation.
      expect(await statusOf(b, session.session_jwt)).toBe(200);
      await post(`${a.url}/revoke`, { session_id: session.session_id });
      const revokedAt = Date.now();
      while ((await statusOf(b, session.session_jwt)) !== 401) {
        expect(Date.now() - revokedAt, `session ${i} still accepted by B`).toBeLessThan(1000);
        await new Promise((r) => setTimeout(r, 5));
      }
      revoked.push(session.session_jwt);
    }
    for (const jwt of revoked) for (const host of [a, b]) expect(await statusOf(host, jwt)).toBe(401);
    const live = await post(`${a.url}/issue`);
    expect(await statusOf(b, live.session_jwt)).toBe(200);
  }, 120_000);
});
