/**
 * Cold import time of @latchkey/core and of its JWT-only subpath: each sample is a fresh
 * `node -e` process that imports the built entry (dist) and prints how long the import took, so
 * module loading is measured without node's own start-up. The median of the samples is reported,
 * as wall time and as the process's CPU time (user + system) over the import: on a loaded machine
 * the wall time also counts waiting for a core, so the CPU column is the steadier one.
 *
 *   npm run bench:cold-import -w @latchkey/bench [-- --samples 9 --against /path/to/other/packages/core]
 *
 * `--against` adds the same rows for another checkout's built core (e.g. main's), run
 * interleaved with this one so both see the same machine load.
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { samples: { type: 'string', default: '9' }, against: { type: 'string' } },
});
const samples = Number(values.samples);
const here = fileURLToPath(new URL('../../packages/core', import.meta.url));

/** Milliseconds one fresh process spends in `import(entry)`: wall and CPU. */
function importMs(entry: string): { wall: number; cpu: number } {
  const script = `const c=process.cpuUsage(),t=performance.now();await import(${JSON.stringify(entry)});const u=process.cpuUsage(c);console.log(performance.now()-t,(u.user+u.system)/1000)`;
  const [wall, cpu] = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
  })
    .trim()
    .split(' ')
    .map(Number);
  return { wall: wall!, cpu: cpu! };
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

const times = new Map(rows.map(([label]) => [label, { wall: [] as number[], cpu: [] as number[] }]));
for (let i = 0; i < samples; i++) {
  for (const [label, entry] of rows) {
    const { wall, cpu } = importMs(entry);
    times.get(label)!.wall.push(wall);
    times.get(label)!.cpu.push(cpu);
  }
}

const medians = new Map(
  [...times].map(([label, t]) => [label, { wall: median(t.wall), cpu: median(t.cpu) }]),
);
const against = values.against ? medians.get(rows.at(-1)![0]) : undefined;
const ratio = (x: number, of: number | undefined) => (of ? `${(x / of).toFixed(2)}x`.padStart(7) : '');
console.log(`cold import, median of ${samples} fresh processes (ms; ratios to the --against core)`);
console.log(
  `${'wall'.padStart(6)}${against ? '  ratio' : ''}${'cpu'.padStart(7)}${against ? '  ratio' : ''}`,
);
for (const [label, m] of medians) {
  const cols = `${m.wall.toFixed(0).padStart(6)}${ratio(m.wall, against?.wall)}${m.cpu.toFixed(0).padStart(7)}${ratio(m.cpu, against?.cpu)}`;
  console.log(`${cols}  ${label}`);
}
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
