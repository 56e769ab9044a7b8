import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { memoryStorage } from '@latchkey/memory';
import { describe, expect, it } from 'vitest';
import { createLatchkey, defaultCapabilities, defineCapability, errorCatalogue } from '../src/index.js';
import { TEST_SECRET } from './helpers.js';

/** The built-in list (src/capabilities.ts) against the tree it describes. */
const src = join(import.meta.dirname, '../src');
const folderOf = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** Every catalogue error type named in a folder's sources. */
function namedErrors(folder: string): string[] {
  const files = readdirSync(join(src, folder), { recursive: true, encoding: 'utf8' }).filter((f) =>
    f.endsWith('.ts'),
  );
  const named = new Set<string>();
  for (const file of files) {
    for (const [, literal] of readFileSync(join(src, folder, file), 'utf8').matchAll(/'([a-z_]+)'/g))
      if (literal && Object.hasOwn(errorCatalogue, literal)) named.add(literal);
  }
  return [...named].sort();
}

describe('the built-in capabilities', () => {
  it('each live in the folder their name spells, with a capability.ts', () => {
    for (const c of defaultCapabilities)
      expect(readdirSync(join(src, folderOf(c.name))), c.name).toContain('capability.ts');
  });

  it("list every error type their folder's code names", () => {
    for (const c of defaultCapabilities) {
      const missing = namedErrors(folderOf(c.name)).filter(
        (e) => !(c.errors as readonly string[]).includes(e),
      );
      expect(missing, `${c.name}/capability.ts errors`).toEqual([]);
    }
  });

  it("own every Storage repo between them, rateLimits aside (the kernel's limiter)", () => {
    const owned = defaultCapabilities.flatMap((c) => c.storage);
    expect(new Set(owned).size, 'a repo owned twice').toBe(owned.length);
    // Storage's members that are not repos: its transactions, its close and its revocation channel.
    const notRepos = ['transaction', 'close', 'sessionRevocations'];
    const repos = Object.keys(memoryStorage()).filter((k) => !notRepos.includes(k));
    expect([...owned, 'rateLimits'].sort()).toEqual(repos.sort());
  });

  it('build each service after those it needs, whatever the order of the list', () => {
    const built: string[] = [];
    const first = defineCapability({
      name: 'first',
      needs: [],
      storage: [],
      errors: [],
      service: () => {
        built.push('first');
        return { n: 1 };
      },
    });
    const second = defineCapability({
      name: 'second',
      needs: [first],
      storage: [],
      errors: [],
      service: ({ services }) => {
        built.push('second');
        return { n: services.first.n + 1 };
      },
    });
    const apps = defaultCapabilities[0];
    const latchkey = createLatchkey({
      storage: memoryStorage(),
      secret: TEST_SECRET,
      capabilities: [second, apps, first],
    });
    expect(built).toEqual(['first', 'second']);
    expect(latchkey.second.n).toBe(2);
    expect(Object.keys(latchkey).slice(0, 3)).toEqual(['second', 'apps', 'first']);
  });
});
