#!/usr/bin/env node
// Run by npm in a public package's directory around `npm pack` / `npm publish` (prepack, postpack).
//   prepare: copies the root LICENSE in and drops the `source` export condition from package.json,
//            keeping the original beside it, so the tarball never points a consumer at .ts files
//            (see docs/decisions.md, "The `source` condition stays in the repository").
//   restore: puts the original package.json back and removes the copied LICENSE.
import { copyFileSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const saved = 'package.json.workspace';

/** The exports map without `source` conditions, at any depth. */
export function withoutSource(exportsField) {
  if (typeof exportsField !== 'object' || exportsField === null) return exportsField;
  return Object.fromEntries(
    Object.entries(exportsField)
      .filter(([key]) => key !== 'source')
      .map(([key, value]) => [key, withoutSource(value)]),
  );
}

function prepare() {
  if (!existsSync(saved)) copyFileSync('package.json', saved);
  const manifest = JSON.parse(readFileSync(saved, 'utf8'));
  manifest.exports = withoutSource(manifest.exports);
  writeFileSync('package.json', `${JSON.stringify(manifest, null, 2)}\n`);
  copyFileSync(`${root}LICENSE`, 'LICENSE');
}

function restore() {
  if (existsSync(saved)) renameSync(saved, 'package.json');
  rmSync('LICENSE', { force: true });
}

const step = process.argv[2];
if (step === 'prepare') prepare();
else if (step === 'restore') restore();
else if (step !== undefined) {
  console.error(`pack-manifest: unknown step ${step} (prepare | restore)`);
  process.exit(2);
}
