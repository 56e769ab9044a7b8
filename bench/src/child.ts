import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export interface Child<T> {
  info: T;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Runs a TypeScript entry point in its own process and waits for the JSON line it prints when ready.
 * The entry is compiled first, as the packages' builds compile Latchkey for npm (see `compile`), and
 * run on plain Node: every server in a run, bare Express and the peer included, the same way.
 */
export async function startChild<T>(
  entry: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  nodeArgs: string[] = [],
): Promise<Child<T>> {
  const file = await compile(fileURLToPath(new URL(entry, import.meta.url)));
  const child = spawn(process.execPath, [...nodeArgs, file, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    child.once('exit', (code) => reject(new Error(`${entry} exited with ${code} before it was ready`)));
    lines.on('line', (line) => {
      if (!line.startsWith('{"url"')) return;
      resolve({
        info: JSON.parse(line) as T,
        process: child,
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

const outDir = fileURLToPath(new URL('../.build/', import.meta.url));
const compiled = new Map<string, Promise<string>>();

/**
 * The entry and the Latchkey packages it reaches, from their TypeScript source, in one ES module;
 * every other package stays an import from node_modules. Running the source under tsx instead
 * measures tsx: it compiles with esbuild's keepNames, so every closure a request creates also
 * pays a `__name` property definition, a cost no installed Latchkey (built by tsup) carries.
 */
export function compile(entry: string): Promise<string> {
  let out = compiled.get(entry);
  if (!out) {
    out = bundle(entry);
    compiled.set(entry, out);
  }
  return out;
}

async function bundle(entry: string): Promise<string> {
  // Named by the entry's path too: BENCH_BASE compiles another checkout's entries of the same name.
  const tag = createHash('sha256').update(entry).digest('hex').slice(0, 8);
  const outfile = path.join(outDir, `${path.basename(entry, '.ts')}-${tag}.mjs`);
  await mkdir(outDir, { recursive: true });
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['source'],
    logLevel: 'warning',
    plugins: [
      {
        name: 'packages-stay-external',
        setup(b) {
          b.onResolve({ filter: /^[^./]/ }, (args) =>
            args.path.startsWith('@latchkey/') ? undefined : { path: args.path, external: true },
          );
        },
      },
    ],
  });
  return outfile;
}
