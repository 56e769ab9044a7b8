/**
 * Cold import time of @latchkey/core and of its JWT-only subpath: each sample is a fresh
 * `node -e` process that imports the built entry (dist) and prints how long the import took, so
 * module loading is measured without node's own start-up. The median of the samples is reported.
 *
 *   npm run bench:cold-import -w @latchkey/bench [-- --samples 9 --against /path/to/other/packages/core]
 *
 * `--against` adds the same rows for another checkout's built core (e.g. main's), run
 * interleaved with this one so both see the same machine load.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { samples: { type: 'string', default: '9' }, against: { type: 'string' } },
});
const samples = Number(values.samples);
const here = fileURLToPath(new URL('../../packages/core', import.meta.url));

/** Milliseconds one fresh process spends in `import(entry)`. */
function importMs(entry: string): number {
  const script = `const t=performance.now();await import(${JSON.stringify(entry)});console.log(performance.now()-t)`;
  return Number(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).trim(),
  );
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const rows: [string, string][] = [
  ['@latchkey/core', `${here}/dist/index.js`],
  ['@latchkey/core/jwt', `${here}/dist/jwt.js`],
];
if (values.against) rows.push([`@latchkey/core (${values.against})`, `${values.against}/dist/index.js`]);

const times = new Map(rows.map(([label]) => [label, [] as number[]]));
for (let i = 0; i < samples; i++) for (const [label, entry] of rows) times.get(label)!.push(importMs(entry));

console.log(`cold import, median of ${samples} fresh processes (ms)`);
for (const [label] of rows) console.log(`${median(times.get(label)!).toFixed(0).padStart(6)}  ${label}`);
