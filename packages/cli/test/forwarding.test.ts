import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { latchkey, newFolder, packageDir, removeFolders } from './run-bin.js';

// Each command is a process of its own (under tsx in the repository): seconds each on a busy machine.
vi.setConfig({ testTimeout: 300_000 });

const SECRET = 'forwarding-test-secret-of-at-least-32-chars';
const children = new Set<ChildProcess>();
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await removeFolders();
});

/** Starts test/fixtures/host.ts on `dataDir`; resolves once its admin socket answers. */
async function startHost(dataDir: string) {
  const child = spawn(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', path.join(packageDir, 'test/fixtures/host.ts'), dataDir],
    {
      cwd: packageDir,
      env: { ...process.env, LATCHKEY_SECRET: SECRET },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  children.add(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => (String(chunk).includes('ready') ? resolve() : undefined));
    child.once('exit', (code) => reject(new Error(`host exited with ${code}`)));
  });
  return {
    stop: () =>
      new Promise<number | null>((resolve) => {
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
}

describe('a host on PGlite that serves the admin socket', () => {
  it('answers the app commands while it runs; migrate refuses beside it; the CLI opens PGlite once it stops', async () => {
    const cwd = await newFolder();
    const env = { LATCHKEY_SECRET: SECRET };
    const dataDir = path.join(cwd, '.latchkey');
    const host = await startHost(dataDir);
    expect(existsSync(path.join(dataDir, 'admin.sock'))).toBe(true);

    const created = await latchkey(['app', 'create', '--name', 'Through the host', '--json'], { cwd, env });
    expect(created, created.stderr).toMatchObject({ code: 0 });
    const { app_id } = JSON.parse(created.stdout);
    const set = await latchkey(
      ['app', 'settings', 'set', '--app', app_id, '{"redirect_urls":{"login":["https://h.example/"]}}'],
      {
        cwd,
        env,
      },
    );
    expect(set, set.stderr).toMatchObject({ code: 0 });
    // An error inside the host comes back as the CLI's own failure.
    const missing = await latchkey(['app', 'settings', 'get', '--app', 'app_nope'], { cwd, env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('app_not_found');

    const migrate = await latchkey(['migrate'], { cwd, env });
    expect(migrate.code).toBe(1);
    expect(migrate.stderr).toContain('a server is running on');
    const doctor = await latchkey(['doctor'], { cwd, env });
    expect(doctor.stdout).toMatch(/^ok {3}database +embedded PGlite in .*, open in the running server$/m);
    expect(doctor.stdout).toMatch(/^warn migrations +not checked/m);

    expect(await host.stop()).toBe(0);
    expect(existsSync(path.join(dataDir, 'admin.sock'))).toBe(false);
    // The host's process is gone: the CLI opens the folder itself and finds what the host stored.
    const listed = await latchkey(['app', 'list', '--json'], { cwd, env });
    expect(listed, listed.stderr).toMatchObject({ code: 0 });
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ app_id, name: 'Through the host' }),
    ]);
    const got = await latchkey(['app', 'settings', 'get', '--app', app_id], { cwd, env });
    expect(JSON.parse(got.stdout).redirect_urls.login).toEqual(['https://h.example/']);
  });

  it('refuses to open PGlite beside a live host that does not answer on the socket', async () => {
    const cwd = await newFolder();
    const dataDir = path.join(cwd, '.latchkey');
    const host = await startHost(dataDir);
    try {
      const { rm } = await import('node:fs/promises');
      await rm(path.join(dataDir, 'admin.sock'));
      const refused = await latchkey(['app', 'list'], { cwd, env: { LATCHKEY_SECRET: SECRET } });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('did not answer on its admin socket; stop it first');
    } finally {
      await host.stop();
    }
  });
});
