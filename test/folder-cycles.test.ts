import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script, typed by what it returns here
import { ALLOWED, check, cycleEdges, folderEdges, specifiers } from '../scripts/folder-cycles.mjs';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function tree(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'latchkey-folders-'));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

describe('the folder-cycle guard of npm run lint', () => {
  it('counts type imports, re-exports, import() types and augmentations, not comments', () => {
    expect(
      specifiers(
        [
          "import type { A } from '../a/repo.js';",
          "export * from './b.js';",
          "type C = import('../c/x.js').C;",
          "declare module '../ports/storage.js' {}",
          "// import { D } from '../d/x.js';",
          'const s = \'import x from "../e/x.js"\';',
        ].join('\n'),
      ),
    ).toEqual(['../a/repo.js', './b.js', '../c/x.js', '../ports/storage.js']);
  });

  it('finds a cycle made by a type import alone, and refuses it unless allowed', async () => {
    const root = await tree({
      'ports/storage.ts': "import type { UserRepo } from '../users/repo.js';\nexport type S = UserRepo;\n",
      'users/repo.ts': "import type { S } from '../ports/storage.js';\nexport type UserRepo = S;\n",
      'latchkey.ts': "import type { S } from './ports/storage.js';\nexport type L = S;\n",
    });
    const found = cycleEdges(folderEdges(root));
    expect(found).toEqual(['ports -> users', 'users -> ports']);
    expect(check(found, ['users -> ports']).added).toEqual(['ports -> users']);
    expect(check(found, found)).toEqual({ added: [], gone: [] });
  });

  it('asks for an allowed edge to be removed once its cycle is gone', async () => {
    const root = await tree({
      'users/repo.ts': "import type { S } from '../ports/storage.js';\nexport type UserRepo = S;\n",
      'ports/storage.ts': 'export type S = { close(): void };\n',
    });
    const found = cycleEdges(folderEdges(root));
    expect(found).toEqual([]);
    expect(check(found, ['users -> ports']).gone).toEqual(['users -> ports']);
  });

  it('passes on packages/core/src as it is', () => {
    const found = cycleEdges(folderEdges(resolve(import.meta.dirname, '../packages/core/src')));
    expect(check(found, ALLOWED)).toEqual({ added: [], gone: [] });
  });
});
