import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');
const run = promisify(execFile);

/** Runs the repository's import rules over a tree of files; the rule names it breaks. */
async function violations(files: Record<string, string>): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'latchkey-deps-'));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  const result = await run(
    process.execPath,
    [
      join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'),
      'packages',
      '--config',
      join(root, '.dependency-cruiser.cjs'),
      '--output-type',
      'json',
    ],
    { cwd: dir },
  ).catch((err: { stdout: string }) => err);
  const report = JSON.parse(result.stdout) as { summary: { violations: Array<{ rule: { name: string } }> } };
  return report.summary.violations.map((v) => v.rule.name);
}

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('the import rules of npm run lint', () => {
  it('refuse an import cycle', async () => {
    expect(
      await violations({
        'packages/core/src/users/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
        'packages/core/src/users/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
      }),
    ).toContain('no-circular');
  });

  it("refuse a capability reaching another's routes, and a port importing a service", async () => {
    const found = await violations({
      'packages/core/src/otps/routes.ts': 'export const otpRoutes = 1;\n',
      'packages/core/src/users/service.ts':
        "import { otpRoutes } from '../otps/routes.js';\nexport const s = otpRoutes;\n",
      'packages/core/src/ports/storage.ts': "import { s } from '../users/service.js';\nexport const p = s;\n",
    });
    expect(found).toContain('routes-only-from-their-capability');
    expect(found).toContain('leaves-stay-leaves');
  });

  it("refuse a descriptor mounting another's routes or reaching another's internals", async () => {
    const found = await violations({
      'packages/core/src/otps/routes.ts': 'export const otpRoutes = 1;\n',
      'packages/core/src/otps/service.ts': 'export const otpService = 1;\n',
      'packages/core/src/users/capability.ts':
        "import { otpRoutes } from '../otps/routes.js';\nimport { otpService } from '../otps/service.js';\nexport const c = [otpRoutes, otpService];\n",
    });
    expect(found).toContain('descriptors-mount-their-own-routes');
    expect(found).toContain('descriptors-reach-others-by-descriptor');
  });

  it("refuse a capability reaching another's internals, and allow its surface", async () => {
    const found = await violations({
      'packages/core/src/users/channels.ts': 'export const channels = 1;\n',
      'packages/core/src/users/repo.ts': 'export type UserRecord = { id: string };\n',
      'packages/core/src/otps/service.ts':
        "import { channels } from '../users/channels.js';\nimport type { UserRecord } from '../users/repo.js';\nexport const s = (u: UserRecord) => [channels, u];\n",
    });
    expect(found).toEqual(['capabilities-meet-at-their-surface']);
  });

  it('refuse a shared layer naming a capability, the list or the kernel', async () => {
    const found = await violations({
      'packages/core/src/apps/repo.ts': 'export type AppRecord = { id: string };\n',
      'packages/core/src/capabilities.ts': 'export const defaultCapabilities = [];\n',
      'packages/core/src/http/app.ts':
        "import type { AppRecord } from '../apps/repo.js';\nexport type A = AppRecord;\n",
      'packages/core/src/http/mount.ts':
        "import { defaultCapabilities } from '../capabilities.js';\nexport const m = defaultCapabilities;\n",
      'packages/core/src/ports/storage.ts':
        "import type { AppRecord } from '../apps/repo.js';\nexport type S = { apps: AppRecord };\n",
    });
    expect(found).toEqual([
      'shared-layers-name-no-capability',
      'shared-layers-name-no-capability',
      'shared-layers-name-no-capability',
    ]);
  });

  it('pass a tree that keeps them', async () => {
    expect(
      await violations({
        'packages/core/src/users/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
        'packages/core/src/users/b.ts': 'export const b = 1;\n',
        'packages/core/src/otps/capability.ts':
          "import { sessions } from '../sessions/capability.js';\nimport { otpRoutes } from './routes.js';\nexport const otps = [sessions, otpRoutes];\n",
        'packages/core/src/otps/routes.ts': 'export const otpRoutes = 1;\n',
        'packages/core/src/sessions/capability.ts': 'export const sessions = 1;\n',
      }),
    ).toEqual([]);
  });
});
