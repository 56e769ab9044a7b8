import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { memoryStorage } from '@latchkey/memory';
import { describe, expect, it } from 'vitest';
import { genericErrors } from '../src/errors.js';
import { createLatchkey, defaultCapabilities, defineCapability, errorCatalogue } from '../src/index.js';
import { TEST_SECRET } from './helpers.js';

/** The built-in list (src/capabilities.ts) against the tree it describes. */
const src = join(import.meta.dirname, '../src');
const folderOf = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** Every .ts file under src/, relative to it. */
const sources = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));

/**
 * Where each catalogue error type is named in core's sources: the folder (or top-level file) of
 * each file naming it, the catalogue's own files aside (errors.ts, capability-errors.ts, each
 * folder's errors.ts).
 */
function namers(): Map<string, Set<string>> {
  const named = new Map<string, Set<string>>();
  for (const file of sources) {
    if (/(^|\/)(errors|capability-errors)\.ts$/.test(file)) continue;
    const node = file.includes(sep) ? file.slice(0, file.indexOf(sep)) : file;
    for (const [, literal] of readFileSync(join(src, file), 'utf8').matchAll(/'([a-z_]+)'/g))
      if (literal && Object.hasOwn(errorCatalogue, literal)) {
        if (!named.has(literal)) named.set(literal, new Set());
        named.get(literal)?.add(node);
      }
  }
  return named;
}

const folders = new Set(defaultCapabilities.map((c) => folderOf(c.name)));

/**
 * Generic types only one capability names, kept in errors.ts all the same: the storage adapter's
 * missing method (any capability may meet it), and the policy refusal whose rule the error body
 * itself carries (`policy_rule`, LatchkeyError's `policyRule`).
 */
const genericByDesign = ['storage_feature_missing', 'policy_violation'];

/** What is wrong with where the error types live, given who names each. */
function misplaced(named: Map<string, Set<string>>): string[] {
  const wrong: string[] = [];
  for (const c of defaultCapabilities)
    for (const type of Object.keys(c.errors ?? {})) {
      const others = [...(named.get(type) ?? [])].filter((n) => n !== folderOf(c.name));
      if (others.length > 0) wrong.push(`${type} (${c.name}'s) is also raised by ${others.join(', ')}`);
    }
  for (const type of Object.keys(genericErrors)) {
    const by = [...(named.get(type) ?? [])];
    if (by.length === 1 && folders.has(by[0] ?? '') && !genericByDesign.includes(type))
      wrong.push(`${type} (errors.ts) is raised by ${by[0]} alone: move it to ${by[0]}/errors.ts`);
  }
  return wrong;
}

describe('the built-in capabilities', () => {
  it('each live in the folder their name spells, with a capability.ts', () => {
    for (const c of defaultCapabilities)
      expect(readdirSync(join(src, folderOf(c.name))), c.name).toContain('capability.ts');
  });

  it("declare as their errors the table of their folder's errors.ts, which imports nothing", async () => {
    for (const c of defaultCapabilities) {
      const file = join(src, folderOf(c.name), 'errors.ts');
      if (!existsSync(file)) {
        expect(c.errors, `${c.name} has no errors.ts`).toBeUndefined();
        continue;
      }
      const exported = Object.values(await import(file));
      expect(exported, `${c.name}/errors.ts exports one table`).toHaveLength(1);
      expect(c.errors, `${c.name}'s errors`).toBe(exported[0]);
      expect(readFileSync(file, 'utf8'), `${c.name}/errors.ts`).not.toMatch(/^\s*(import|export .* from)\b/m);
    }
  });

  it("raise only errors.ts's generic types and their own", () => {
    const named = namers();
    for (const c of defaultCapabilities) {
      const allowed = { ...genericErrors, ...c.errors };
      const foreign = [...named]
        .filter(([type, by]) => by.has(folderOf(c.name)) && !Object.hasOwn(allowed, type))
        .map(([type]) => type);
      expect(foreign, `${c.name} raises another capability's error types`).toEqual([]);
    }
  });

  it('own the types no other part of core raises, and leave the rest in errors.ts', () => {
    const named = namers();
    expect(misplaced(named)).toEqual([]);
    // The check sees each kind of mistake.
    const moved = new Map(named).set('otp_code_invalid', new Set(['otps', 'totps']));
    expect(misplaced(moved)).toEqual(["otp_code_invalid (otps's) is also raised by totps"]);
    const single = new Map(named).set('duplicate_wallet', new Set(['wallets']));
    expect(misplaced(single)).toEqual([
      'duplicate_wallet (errors.ts) is raised by wallets alone: move it to wallets/errors.ts',
    ]);
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
      service: () => {
        built.push('first');
        return { n: 1 };
      },
    });
    const second = defineCapability({
      name: 'second',
      needs: [first],
      storage: [],
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
