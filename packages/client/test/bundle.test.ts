import { createLatchkey } from '@latchkey/core';
import { memoryStorage } from '@latchkey/memory';
import { describe, expect, it } from 'vitest';
import { bundleBrowserEntry } from '../scripts/bundle.js';

/** The routes the server documents as secret-key only, as `/v1/...` paths. */
function secretOnlyPaths(): string[] {
  const latchkey = createLatchkey({
    storage: memoryStorage(),
    secret: 's'.repeat(40),
    sender: { send: async () => {} },
  });
  const doc = latchkey.openapi() as unknown as {
    paths: Record<string, Record<string, { security?: Array<Record<string, string[]>> }>>;
  };
  const byPath = new Map<string, boolean>();
  for (const [path, ops] of Object.entries(doc.paths))
    for (const op of Object.values(ops)) {
      const open = (op.security ?? []).length === 0 || (op.security ?? []).some((s) => 'publicToken' in s);
      byPath.set(path, (byPath.get(path) ?? false) || open);
    }
  return [...byPath].filter(([, open]) => !open).map(([path]) => path);
}

describe('the browser entry', () => {
  it('bundles without any secret-key-only route', async () => {
    const code = await bundleBrowserEntry();
    const secretOnly = secretOnlyPaths();
    expect(secretOnly).toContain('/v1/auth/users');
    expect(secretOnly).toContain('/v1/wallets/create');
    const leaked = secretOnly.filter(
      (path) => code.includes(`${path}"`) || code.includes(`${path}'`) || code.includes(`${path}\``),
    );
    expect(leaked).toEqual([]);
    // The public routes it uses are there, so the search looks at the right text.
    expect(code).toContain('/v1/auth/otps/verify');
    expect(code).toContain('/v1/auth/wallets/challenge');
  });
});
