/**
 * The packages as a stranger gets them from npm: every public package under packages/ is packed
 * (`npm pack`, so prepack/postpack run as on publish), checked by publint and
 * @arethetypeswrong/cli, installed from its tarball into a fresh project (third-party
 * dependencies from the registry), and used there by an ESM app, a CommonJS app (`require`) and
 * a TypeScript consumer that enables the `source` condition. A package whose build is missing or
 * older than its sources is built first, so `npm test` in a fresh clone needs no build step.
 */
import { execFile, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = new URL('..', import.meta.url).pathname;
const bin = (name: string) => join(root, 'node_modules/.bin', name);

interface Manifest {
  name: string;
  private?: boolean;
  exports: Record<string, unknown>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const publicPackages = readdirSync(join(root, 'packages'))
  .map((dir) => ({
    dir: join(root, 'packages', dir),
    manifestPath: join(root, 'packages', dir, 'package.json'),
  }))
  .filter(({ manifestPath }) => existsSync(manifestPath))
  .map(({ dir, manifestPath }) => ({
    dir,
    manifest: JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest,
  }))
  .filter(({ manifest }) => !manifest.private);

const work = mkdtempSync(join(tmpdir(), 'latchkey-packed-'));
const project = join(work, 'project');
const tarballs = new Map<string, string>();

/** Every packed package is loaded by both apps, except those that only run inside their peer (vitest). */
const loadable = publicPackages
  .filter(({ manifest }) => !manifest.peerDependencies?.vitest)
  .map(({ manifest }) => manifest.name);

const secret = 'packed-packages-test-secret-of-40-characters';

/** The app body both module systems share: Latchkey on PGlite under Express, a user created over HTTP. */
const appBody = `
  const storage = await pgliteStorage(undefined, { migrate: true });
  const latchkey = createLatchkey({ storage, secret: ${JSON.stringify(secret)} });
  const keys = await latchkey.apps.create({ name: 'packed' });
  const server = express().use('/auth', latchkeyRouter(latchkey)).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const res = await fetch('http://127.0.0.1:' + server.address().port + '/auth/v1/auth/users', {
    method: 'POST',
    headers: { authorization: 'Bearer ' + keys.secret_key, 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'ada@example.com' }),
  });
  const body = await res.json();
  const read = await latchkey.users.get(keys.app.id, body.user_id);
  server.close();
  await storage.close();
  console.log(JSON.stringify({ status: res.status, userId: body.user_id, stored: read.emails[0].email, loaded }));
`;

const esmApp = `
import express from 'express';
import { createLatchkey } from '@latchkey/core';
import { latchkeyRouter } from '@latchkey/express';
import { pgliteStorage } from '@latchkey/kysely-postgres';
const loaded = {};
for (const name of ${JSON.stringify(loadable)}) loaded[name] = Object.keys(await import(name)).length;
${appBody}
`;

const cjsApp = `
const express = require('express');
const { createLatchkey } = require('@latchkey/core');
const { latchkeyRouter } = require('@latchkey/express');
const { pgliteStorage } = require('@latchkey/kysely-postgres');
const loaded = {};
for (const name of ${JSON.stringify(loadable)}) loaded[name] = Object.keys(require(name)).length;
(async () => {
${appBody}
})();
`;

/**
 * A TypeScript host (an ESM project: in a CommonJS one, kysely's own CJS and ESM typings would
 * differ) that enables `source`, as a monorepo of its own might, and brings its own Kysely.
 */
const consumer = `
import { createLatchkey, type Latchkey } from '@latchkey/core';
import { verifySessionJwt, type SessionClaims } from '@latchkey/core/jwt';
import { latchkeyRouter } from '@latchkey/express';
import { kyselyStorage } from '@latchkey/kysely-postgres';
import { memoryStorage } from '@latchkey/memory';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';

const db = new Kysely<Record<string, never>>({ dialect: new PostgresDialect({ pool: new pg.Pool() }) });
export const onHostKysely = kyselyStorage({ db });
export const latchkey: Latchkey = createLatchkey({ storage: memoryStorage(), secret: 'x'.repeat(32) });
export const router = latchkeyRouter(latchkey);
export const check = (jwt: string): Promise<SessionClaims> =>
  verifySessionJwt(jwt, { jwks: { keys: [] }, appId: 'app_x' });
`;

/** The fenced blocks of a Markdown text marked `<!-- runnable: NAME -->` on the line before, by NAME. */
function runnableBlocks(markdown: string): Map<string, string> {
  const blocks = new Map<string, string>();
  for (const [, name, body] of markdown.matchAll(/<!-- runnable: (\S+) -->\n```\w*\n([\s\S]*?)```/g))
    blocks.set(name!, body!);
  return blocks;
}

/** Resolves with the first match of `pattern` in what the child prints, or rejects when it exits first. */
function waitForOutput(child: ReturnType<typeof spawn>, pattern: RegExp): Promise<RegExpMatchArray> {
  let seen = '';
  return new Promise((resolve, reject) => {
    const read = (chunk: Buffer) => {
      seen += chunk.toString();
      const match = seen.match(pattern);
      if (match) resolve(match);
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('exit', (code) =>
      reject(new Error(`exited with ${code} before printing ${pattern}:\n${seen}`)),
    );
  });
}

async function npm(args: string[], cwd: string) {
  return run('npm', args, {
    cwd,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
}

function newestMtime(file: string): number {
  if (!existsSync(file)) return 0;
  const stat = statSync(file);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(file).map((entry) => newestMtime(join(file, entry))));
}

/** Built, and more recently than anything its build reads. */
function buildIsFresh(dir: string): boolean {
  const built = join(dir, 'dist', 'index.d.ts');
  if (!existsSync(built)) return false;
  const inputs = ['src', 'package.json', 'tsup.config.ts', 'tsconfig.build.json'].map((p) => join(dir, p));
  return statSync(built).mtimeMs > Math.max(...inputs.map(newestMtime));
}

/**
 * Builds the stale packages, each after the workspace packages it depends on: a package's
 * declarations are compiled against its dependencies' built ones.
 */
async function buildStalePackages() {
  const byName = new Map(publicPackages.map((p) => [p.manifest.name, p]));
  const done = new Set<string>();
  const visit = async (name: string) => {
    const pkg = byName.get(name);
    if (!pkg || done.has(name)) return;
    done.add(name);
    const deps = { ...pkg.manifest.dependencies, ...pkg.manifest.peerDependencies };
    for (const dep of Object.keys(deps)) await visit(dep);
    if (!buildIsFresh(pkg.dir)) await npm(['run', 'build', '-w', pkg.dir], root);
  };
  for (const name of byName.keys()) await visit(name);
}

beforeAll(async () => {
  await buildStalePackages();
  const packed = await npm(
    ['pack', '--json', '--pack-destination', work, ...publicPackages.flatMap(({ dir }) => ['-w', dir])],
    root,
  );
  for (const entry of JSON.parse(packed.stdout) as { name: string; filename: string }[]) {
    tarballs.set(entry.name, join(work, entry.filename));
  }
  await run('mkdir', ['-p', project]);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'stranger', private: true, type: 'module' }),
  );
  await npm(
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      ...tarballs.values(),
      'express@5',
      'hono@4',
      'fastify@5',
      'kysely@0.28',
      '@electric-sql/pglite@0.5',
      'pg@8',
      'typescript@5.9',
      '@types/node@20',
      '@types/express@5',
      // @latchkey/react's peer, as an app using it has it.
      'react@19',
    ],
    project,
  );
}, 900_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the packed packages', () => {
  it('packs every public package, with LICENSE, README and declaration maps, and no source condition', async () => {
    expect([...tarballs.keys()].sort()).toEqual(publicPackages.map(({ manifest }) => manifest.name).sort());
    for (const [name, tarball] of tarballs) {
      const { stdout: files } = await run('tar', ['-tzf', tarball]);
      expect(files, name).toMatch(/^package\/LICENSE$/m);
      expect(files, name).toMatch(/^package\/README\.md$/m);
      expect(files, name).toMatch(/^package\/dist\/index\.d\.ts\.map$/m);
      const { stdout: manifest } = await run('tar', ['-xzOf', tarball, 'package/package.json']);
      expect(manifest, name).not.toContain('"source"');
      expect(JSON.parse(manifest).exports['.'].default, name).toBe('./dist/index.js');
    }
    // React Server Components bundlers read the directive off the module's first line.
    const { stdout: reactEntry } = await run('tar', [
      '-xzOf',
      tarballs.get('@latchkey/react')!,
      'package/dist/index.js',
    ]);
    expect(reactEntry.split('\n')[0]).toMatch(/^["']use client["'];$/);
    // postpack put the workspace manifests back, source condition included.
    for (const { manifest } of publicPackages) expect(JSON.stringify(manifest.exports)).toContain('"source"');
  });

  it('passes publint and @arethetypeswrong/cli with no warning', async () => {
    await Promise.all(
      [...tarballs].map(async ([name, tarball]) => {
        const lint = await run(bin('publint'), ['run', tarball, '--strict'], { cwd: work });
        expect(lint.stdout, name).toMatch(/All good/);
        // Every package is ESM only ("type": "module", one `default` export per entry, no CJS
        // build): esm-only is the profile it is published for. attw exits non-zero on a problem.
        await run(bin('attw'), [tarball, '--profile', 'esm-only'], { cwd: work });
        // node16 as well: the CommonJS app below require()s these packages (ESM loaded by
        // require(), as Node 20.19+ does), and a TypeScript CommonJS file must resolve their
        // types as that require does; `cjs-resolves-to-esm` is that very case, not a fault.
        await run(bin('attw'), [tarball, '--profile', 'node16', '--ignore-rules', 'cjs-resolves-to-esm'], {
          cwd: work,
        });
      }),
    );
  }, 600_000);

  it('installs with one Kysely, the host project’s own', () => {
    expect(existsSync(join(project, 'node_modules/@latchkey/kysely-postgres/node_modules/kysely'))).toBe(
      false,
    );
  });

  for (const [kind, file, source] of [
    ['an ESM app', 'app.mjs', esmApp],
    ['a CommonJS app (require)', 'app.cjs', cjsApp],
  ] as const) {
    it(`runs ${kind} that creates a user over HTTP on PGlite`, async () => {
      writeFileSync(join(project, file), source);
      const { stdout } = await run(process.execPath, [file], { cwd: project });
      const result = JSON.parse(stdout.trim().split('\n').at(-1)!);
      expect(result.status).toBe(200);
      expect(result.userId).toMatch(/^user_/);
      expect(result.stored).toBe('ada@example.com');
      for (const name of loadable) expect(result.loaded[name], name).toBeGreaterThan(0);
    }, 180_000);
  }

  it("type-checks a consumer with customConditions ['source'] and its own Kysely", async () => {
    writeFileSync(join(project, 'consumer.ts'), consumer);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          customConditions: ['source'],
          types: ['node'],
        },
        files: ['consumer.ts'],
      }),
    );
    const tsc = await run(join(project, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], {
      cwd: project,
    }).catch((err: { stdout: string }) => err);
    expect(tsc.stdout).toBe('');
  }, 180_000);

  it('runs the latchkey bin from its tarball (built JS, no tsx): init, migrate --dry-run, migrate, doctor, app create', async () => {
    const dir = join(project, 'cli-run');
    mkdirSync(dir);
    const env = { ...process.env };
    for (const name of [
      'DATABASE_URL',
      'LATCHKEY_DB_SCHEMA',
      'LATCHKEY_DATA_DIR',
      'LATCHKEY_SECRET',
      'LATCHKEY_VAULT_KEY',
    ])
      delete env[name];
    const latchkey = (...args: string[]) =>
      run(join(project, 'node_modules/.bin/latchkey'), args, { cwd: dir, env }).catch(
        (err: { code: number; stdout: string; stderr: string }) => err,
      );
    expect(existsSync(join(project, 'node_modules/tsx'))).toBe(false);
    expect((await latchkey('init')).stdout).toContain('Wrote LATCHKEY_SECRET and LATCHKEY_VAULT_KEY');
    const dry = await latchkey('migrate', '--dry-run');
    expect(dry.stdout).toMatch(/^create table "apps" \(/m);
    expect(existsSync(join(dir, '.latchkey'))).toBe(false);
    expect((await latchkey('migrate')).stdout).toMatch(/^Applied \d+ migrations/);
    const doctor = await latchkey('doctor');
    expect(doctor.stdout, doctor.stderr).toMatch(/^ok {3}migrations/m);
    expect(doctor.stdout).not.toMatch(/^fail/m);
    const created = JSON.parse((await latchkey('app', 'create', '--name', 'Packed', '--json')).stdout);
    expect(created.secret_key).toMatch(/^sk_/);
  }, 180_000);

  it("runs the README's first Express server as written, and a user signs in through it", async () => {
    const blocks = runnableBlocks(readFileSync(join(root, 'README.md'), 'utf8'));
    const [server, start] = [blocks.get('server.mjs'), blocks.get('start')];
    if (!server || !start) throw new Error('README.md lost its runnable server.mjs or start block');
    const dir = join(project, 'readme-first-server');
    mkdirSync(dir);
    writeFileSync(join(dir, 'server.mjs'), server);
    // Its own process group, so the server that the shell starts goes with it.
    const child = spawn('sh', ['-c', start], {
      cwd: dir,
      env: { ...process.env, PORT: '0' },
      detached: true,
    });
    try {
      const [, base] = await waitForOutput(child, /Listening on (http:\/\/\S+)/);
      const keys = JSON.parse(readFileSync(join(dir, '.latchkey/app.json'), 'utf8'));
      const post = async (path: string, body: unknown) => {
        const res = await fetch(`${base}/auth${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${keys.public_token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        return { status: res.status, body: await res.json() };
      };
      const sent = await post('/v1/auth/otps/email/login_or_create', { email: 'ada@example.com' });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      const outbox = readFileSync(join(dir, '.latchkey/outbox.jsonl'), 'utf8').trim().split('\n');
      const { code } = JSON.parse(outbox.at(-1)!);
      const verified = await post('/v1/auth/otps/verify', {
        method_id: sent.body.method_id,
        otp: code,
        session_expires_in: 60,
      });
      expect(verified.status, JSON.stringify(verified.body)).toBe(200);

      const me = await fetch(`${base}/me`, {
        headers: { authorization: `Bearer ${verified.body.session_jwt}` },
      });
      expect(await me.json()).toEqual({ user_id: sent.body.user_id });
      const anonymous = await fetch(`${base}/me`);
      expect(anonymous.status).toBe(401);
      expect(await anonymous.json()).toMatchObject({ status_code: 401, error_type: expect.any(String) });
      expect(readFileSync(join(dir, '.env'), 'utf8')).toMatch(/^LATCHKEY_SECRET=[0-9a-f]{64}\n$/);
    } finally {
      if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGTERM');
    }
  }, 180_000);
});
