import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { testLatchkey } from './helpers.js';

const SRC = join(import.meta.dirname, '../src');

/** Every file under `dir` whose name ends in `suffix`. */
const filesEnding = (dir: string, suffix: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? filesEnding(join(dir, e.name), suffix)
      : e.name.endsWith(suffix)
        ? [join(dir, e.name)]
        : [],
  );

describe('services are plain functions: no `this`', () => {
  it('works with methods taken off the service (destructured, passed as callbacks)', async () => {
    const { latchkey } = testLatchkey();
    const { create, get, rotateSecretKey, authenticateKey } = latchkey.apps;
    const keys = await create({ name: 'Unbound' });
    const { secret_key } = await rotateSecretKey(keys.app_id);
    expect((await get(keys.app_id)).id).toBe(keys.app_id);
    expect((await authenticateKey(secret_key))?.kind).toBe('secret');
    const { create: createUser } = latchkey.users;
    const user = await createUser(keys.app_id, { email: 'unbound@example.com' });
    const [found] = await Promise.all([user.user_id].map((id) => latchkey.users.get(keys.app_id, id)));
    expect(found?.user_id).toBe(user.user_id);
  });

  it('has no `this` in any service, the kernel or createLatchkey', () => {
    const files = [...filesEnding(SRC, 'service.ts'), join(SRC, 'kernel.ts'), join(SRC, 'latchkey.ts')];
    expect(files.length).toBeGreaterThan(10);
    const found: string[] = [];
    for (const file of files) {
      const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        if (node.kind === ts.SyntaxKind.ThisKeyword) {
          const { line } = source.getLineAndCharacterOfPosition(node.getStart());
          found.push(`${file.slice(SRC.length + 1)}:${line + 1}`);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    expect(found).toEqual([]);
  });
});
