import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const src = resolve(import.meta.dirname, '../src');

/** The prefixes each file declares in `interface IdPrefixes` (crypto/ids.ts, or a folder's augmentation). */
function claimedPrefixes(files: Record<string, string>): Array<[string, string]> {
  return Object.entries(files).flatMap(([file, text]) =>
    [...text.matchAll(/interface IdPrefixes \{([^}]*)\}/g)].flatMap((m) =>
      [...(m[1] ?? '').matchAll(/^\s*(\w+)\s*:/gm)].map((p) => [p[1] ?? '', file] as [string, string]),
    ),
  );
}

/** The prefixes claimed by more than one file. */
function clashes(claims: Array<[string, string]>): string[] {
  const owners = new Map<string, string[]>();
  for (const [prefix, file] of claims) owners.set(prefix, [...(owners.get(prefix) ?? []), file]);
  return [...owners].filter(([, files]) => files.length > 1).map(([p, files]) => `${p}: ${files.join(', ')}`);
}

const sources = (): Record<string, string> =>
  Object.fromEntries(
    readdirSync(src, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => [f, readFileSync(join(src, f), 'utf8')]),
  );

describe('id prefixes', () => {
  it('are each claimed by one folder (or shared in crypto/ids.ts)', () => {
    const claims = claimedPrefixes(sources());
    expect(claims.length).toBeGreaterThan(20);
    expect(claims).toContainEqual(['otp', join('otps', 'repo.ts')]);
    expect(clashes(claims)).toEqual([]);
  });

  it('a second claim of a prefix is caught', () => {
    const files = sources();
    files['otps/repo.ts'] +=
      "\ndeclare module '../crypto/ids.js' {\n  interface IdPrefixes {\n    user: true;\n  }\n}\n";
    expect(clashes(claimedPrefixes(files))).toEqual([`user: otps/repo.ts, ${join('users', 'repo.ts')}`]);
  });
});
