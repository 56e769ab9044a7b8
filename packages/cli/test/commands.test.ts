import { existsSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { latchkey, newFolder, removeFolders, type Target, targets } from './run-bin.js';

// Each command is a process of its own (under tsx in the repository): seconds each on a busy machine.
vi.setConfig({ testTimeout: 300_000 });

afterAll(removeFolders);

/** A TCP port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const lines = (text: string) => text.trim().split('\n');

describe('latchkey init', () => {
  it('writes a new .env with a secret and a 32-byte vault key, mode 0600, and refuses to write it again', async () => {
    const cwd = await newFolder();
    const first = await latchkey(['init'], { cwd });
    expect(first, first.stderr).toMatchObject({ code: 0 });
    const file = path.join(cwd, '.env');
    const text = await readFile(file, 'utf8');
    const secret = text.match(/^LATCHKEY_SECRET=(\S+)$/m)?.[1];
    const vaultKey = text.match(/^LATCHKEY_VAULT_KEY=(\S+)$/m)?.[1];
    expect(secret?.length).toBeGreaterThanOrEqual(32);
    expect(Buffer.from(vaultKey!, 'base64url')).toHaveLength(32);
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    const again = await latchkey(['init'], { cwd });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already sets LATCHKEY_SECRET and LATCHKEY_VAULT_KEY; not overwritten');
    expect(await readFile(file, 'utf8')).toBe(text);
    // A second run makes different secrets: nothing is derived from the folder or the clock.
    const other = await newFolder();
    await latchkey(['init'], { cwd: other });
    expect(await readFile(path.join(other, '.env'), 'utf8')).not.toContain(secret);
  });

  it('refuses a .env that sets either one, and appends to a .env that sets neither', async () => {
    const cwd = await newFolder();
    const file = path.join(cwd, '.env');
    await writeFile(file, 'LATCHKEY_VAULT_KEY=kept\n');
    const refused = await latchkey(['init'], { cwd });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('already sets LATCHKEY_VAULT_KEY');
    expect(await readFile(file, 'utf8')).toBe('LATCHKEY_VAULT_KEY=kept\n');

    await writeFile(file, 'PORT=3000'); // no final newline
    const appended = await latchkey(['init'], { cwd });
    expect(appended, appended.stderr).toMatchObject({ code: 0 });
    expect(appended.stdout).toContain('Appended');
    const text = await readFile(file, 'utf8');
    expect(text).toMatch(/^PORT=3000\n/);
    expect(text).toMatch(/^LATCHKEY_SECRET=\S{32,}$/m);
  });
});

describe('usage', () => {
  it('answers exit code 2 for an unknown command or option, and 0 with the usage for --help', async () => {
    const cwd = await newFolder();
    const help = await latchkey(['--help'], { cwd });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('migrate [--dry-run]');
    expect((await latchkey([], { cwd })).code).toBe(2);
    const unknown = await latchkey(['frobnicate'], { cwd });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'frobnicate'");
    const badOption = await latchkey(['migrate', '--dry-rn'], { cwd });
    expect(badOption.code).toBe(2);
    expect(badOption.stderr).toContain("Unknown option '--dry-rn'");
    expect((await latchkey(['app', 'create'], { cwd })).stderr).toContain('--name is required');
  });
});

// The tests of each target are steps on one database, in order: empty, migrated, then in use.
describe.each(targets().map((t) => [t.name, t] as const))('on %s', (_name, target: Target) => {
  let cwd: string;
  beforeAll(async () => {
    cwd = await newFolder();
    expect((await latchkey(['init'], { cwd })).code).toBe(0);
  });
  afterAll(() => target.dispose());
  const run = (args: string[], extra: Record<string, string> = {}, input?: string) =>
    latchkey(args, { cwd, env: { ...target.env, ...extra }, input });

  it('doctor fails before the first migration, app commands refuse to run, and the dry run applies nothing', async () => {
    const doctor = await run(['doctor']);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(
      target.name === 'pglite'
        ? /^fail database .*latchkey migrate/m
        : /^fail migrations +\d+ pending \(0001_initial, /m,
    );
    const app = await run(['app', 'list']);
    expect(app.code).toBe(1);
    expect(app.stderr).toMatch(/latchkey migrate/);

    const dry = await run(['migrate', '--dry-run']);
    expect(dry, dry.stderr).toMatchObject({ code: 0 });
    expect(dry.stdout).toMatch(/^-- 0001_initial$/m);
    expect(dry.stdout).toMatch(/^create table ("lk_cli_\w+"\.)?"apps" \(.*\);$/m);
    expect(dry.stdout).toMatch(/^-- 0011_events_webhooks$/m);
    const json = JSON.parse((await run(['migrate', '--dry-run', '--json'])).stdout);
    // Every migration the dry run printed, and as many as doctor counted.
    const printed = [...dry.stdout.matchAll(/^-- (\d{4}\w*)$/gm)].map((m) => m[1]);
    expect(json.pending.map((p: { name: string }) => p.name)).toEqual(printed);
    expect(printed.length).toBeGreaterThanOrEqual(11);
    if (target.name !== 'pglite') expect(doctor.stdout).toContain(`migrations  ${printed.length} pending`);
    expect(await target.tables(cwd)).toEqual([]);
    // Not even an empty PGlite folder is left behind.
    if (target.name === 'pglite') expect(existsSync(path.join(cwd, '.latchkey'))).toBe(false);
  });

  it('migrate applies every migration once; the dry run then has nothing to print', async () => {
    const pending = JSON.parse((await run(['migrate', '--dry-run', '--json'])).stdout).pending.length;
    const applied = await run(['migrate']);
    expect(applied, applied.stderr).toMatchObject({ code: 0 });
    expect(applied.stdout).toMatch(new RegExp(`^Applied ${pending} migrations to .*0001_initial, `));
    expect(await target.tables(cwd)).toEqual(expect.arrayContaining(['apps', 'kysely_migration', 'users']));
    expect((await run(['migrate'])).stdout).toMatch(/^Nothing to apply/);
    const dry = await run(['migrate', '--dry-run']);
    expect(dry.stdout).toContain('-- Nothing to apply: every migration is applied.');
    expect(dry.stdout).not.toMatch(/create table/i);
    expect(JSON.parse((await run(['migrate', '--json'])).stdout)).toEqual({ applied: [] });
  });

  it('doctor passes on a good setup and names each failure', async () => {
    const good = await run(['doctor']);
    expect(good, good.stdout + good.stderr).toMatchObject({ code: 0 });
    const checks = lines(good.stdout).map((line) => line.split(/\s+/).slice(0, 2).join(' '));
    expect(checks).toEqual(['ok database', 'ok migrations', 'ok clock', 'ok secret', 'ok vault', 'ok proxy']);

    const short = await run(['doctor'], { LATCHKEY_SECRET: 'too-short' });
    expect(short.code).toBe(1);
    expect(short.stdout).toMatch(/^fail secret +LATCHKEY_SECRET has 9 characters, fewer than 32/m);
    const vault = await run(['doctor'], { LATCHKEY_VAULT_KEY: 'c2hvcnQ' });
    expect(vault.code).toBe(1);
    expect(vault.stdout).toMatch(/^fail vault key +LATCHKEY_VAULT_KEY is not 32 bytes/m);
    const proxy = await run(['doctor'], { FLY_APP_NAME: 'demo' });
    expect(proxy.code).toBe(0);
    expect(proxy.stdout).toMatch(/^warn proxy +running on Fly\.io .*trust proxy/m);

    const port = await closedPort();
    const down = await run(['doctor', '--database-url', `postgres://postgres@127.0.0.1:${port}/none`]);
    expect(down.code).toBe(1);
    expect(down.stdout).toMatch(
      new RegExp(
        `^fail database +cannot reach Postgres at .*:${port}/none(, schema \\w+)?: .*ECONNREFUSED`,
        'm',
      ),
    );
    expect(down.stdout).toMatch(/^ok {3}secret/m);
  });

  it('app create, list, settings get and set, and rotate-secret, with --json', async () => {
    const created = await run(['app', 'create', '--name', 'By the CLI', '--json']);
    expect(created, created.stderr).toMatchObject({ code: 0 });
    const keys = JSON.parse(created.stdout);
    expect(Object.keys(keys).sort()).toEqual(['app_id', 'public_token', 'secret_key']);
    expect(keys.secret_key).toMatch(/^sk_/);
    const plain = await run(['app', 'create', '--name', 'Second']);
    expect(plain.stdout).toMatch(/^Created App app_\w+\n {2}secret key: {3}sk_/);

    const listed = JSON.parse((await run(['app', 'list', '--json'])).stdout);
    expect(listed.map((a: { name: string }) => a.name).sort()).toEqual(['By the CLI', 'Second']);
    expect((await run(['app', 'list'])).stdout).toContain(`${keys.app_id}  By the CLI`);

    const patch = '{"redirect_urls":{"login":["https://a.example/cb"]}}';
    const set = await run(['app', 'settings', 'set', '--app', keys.app_id, patch]);
    expect(set, set.stderr).toMatchObject({ code: 0 });
    expect(JSON.parse(set.stdout).redirect_urls.login).toEqual(['https://a.example/cb']);
    const fromStdin = await run(
      ['app', 'settings', 'set', '--app', keys.app_id],
      {},
      '{"redirect_urls":{"signup":["https://b.example/cb"]}}',
    );
    expect(fromStdin, fromStdin.stderr).toMatchObject({ code: 0 });
    const got = JSON.parse((await run(['app', 'settings', 'get', '--app', keys.app_id])).stdout);
    expect(got.redirect_urls).toMatchObject({
      login: ['https://a.example/cb'],
      signup: ['https://b.example/cb'],
    });

    // A provider's secret is written, and never printed back: its hint is, as GET /v1/app shows.
    const secret = 'gh-client-secret-0123456789';
    const provider = `{"oauth":{"providers":{"gh":{"type":"github","client_id":"Iv1.abc","client_secret":"${secret}"}}}}`;
    const withSecret = await run(['app', 'settings', 'set', '--app', keys.app_id, provider]);
    expect(withSecret, withSecret.stderr).toMatchObject({ code: 0 });
    const readBack = (await run(['app', 'settings', 'get', '--app', keys.app_id])).stdout;
    for (const printed of [withSecret.stdout, readBack]) {
      expect(printed).not.toContain(secret);
      expect(printed).not.toContain('_sealed');
      expect(JSON.parse(printed).oauth.providers.gh.client_secret_hint).toEqual(expect.any(String));
    }

    const notJson = await run(['app', 'settings', 'set', '--app', keys.app_id, '{"redirect_urls":']);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain('the settings patch is not valid JSON');
    const unknown = await run(['app', 'settings', 'set', '--app', keys.app_id, '{"sesions":{}}']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("Unknown setting 'sesions'");
    const missing = await run(['app', 'settings', 'get', '--app', 'app_nope']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('app_not_found');

    const rotated = await run([
      'app',
      'rotate-secret',
      '--app',
      keys.app_id,
      '--grace-seconds',
      '0',
      '--json',
    ]);
    expect(rotated, rotated.stderr).toMatchObject({ code: 0 });
    const { secret_key } = JSON.parse(rotated.stdout);
    expect(secret_key).toMatch(/^sk_/);
    expect(secret_key).not.toBe(keys.secret_key);
    expect((await run(['app', 'rotate-secret', '--app', keys.app_id, '--grace-seconds', 'soon'])).code).toBe(
      2,
    );
  });

  it('app commands need the secret the server uses, and say so', async () => {
    await writeFile(path.join(cwd, '.env'), '');
    try {
      const noSecret = await run(['app', 'list']);
      expect(noSecret.code).toBe(1);
      expect(noSecret.stderr).toContain('LATCHKEY_SECRET is not set');
      const doctor = await run(['doctor']);
      expect(doctor.code).toBe(1);
      expect(doctor.stdout).toMatch(/^fail secret +LATCHKEY_SECRET is not set/m);
      expect(doctor.stdout).toMatch(/^warn vault key/m);
      // Set in the environment instead of .env, it is found there.
      const fromEnv = await run(['app', 'list'], { LATCHKEY_SECRET: 'x'.repeat(40) });
      expect(fromEnv.code).toBe(0);
    } finally {
      await latchkey(['init'], { cwd });
    }
  });
});
