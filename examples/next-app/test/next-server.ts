import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const appDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoDir = path.resolve(appDir, '../..');
const nextBin = createRequire(path.join(appDir, 'package.json')).resolve('next/dist/bin/next');

/** Everything `next build` reads; the tests are left out, they do not change the output. */
const buildInputs = [
  ...['app', 'lib', 'proxy.ts', 'next.config.ts', 'tsconfig.json', 'package.json'].map((p) =>
    path.join(appDir, p),
  ),
  ...['client', 'core', 'memory', 'next', 'react', 'senders'].flatMap((pkg) =>
    ['src', 'package.json'].map((p) => path.join(repoDir, 'packages', pkg, p)),
  ),
];

function newestMtime(file: string): number {
  if (!existsSync(file)) return 0;
  const stat = statSync(file);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(file).map((entry) => newestMtime(path.join(file, entry))));
}

// What `nextBuild` printed, kept in `.next` (which every `next build` empties first), so it always
// belongs to the build there.
const buildLog = path.join(appDir, '.next', 'test-build.log');

/** True when `.next` holds a build of `nextBuild`, finished and newer than every build input. */
export function buildIsFresh(): boolean {
  if (!existsSync(buildLog)) return false;
  return statSync(buildLog).mtimeMs > Math.max(...buildInputs.map(newestMtime));
}

/** The output of the `next build` whose result is in `.next`. */
export function buildOutput(): Promise<string> {
  return readFile(buildLog, 'utf8');
}

/** The environment for `next`: no telemetry, and production rather than vitest's NODE_ENV=test. */
function nextEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1', ...extra };
}

export async function nextBuild(): Promise<void> {
  const child = spawn(process.execPath, [nextBin, 'build', '--webpack'], { cwd: appDir, env: nextEnv({}) });
  const output = collect(child);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`next build exited with ${code}:\n${output()}`);
  await writeFile(buildLog, output());
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

export interface NextServer {
  url: string;
  stop(): Promise<void>;
}

/** `next start` on `port`, resolved once `readyPath` answers 200. */
export async function nextStart(
  port: number,
  env: Record<string, string>,
  readyPath: string,
  timeoutMs = 60_000,
): Promise<NextServer> {
  const child = spawn(process.execPath, [nextBin, 'start', '-p', String(port), '-H', '127.0.0.1'], {
    cwd: appDir,
    env: nextEnv(env),
    // Its own process group, so stop() also reaches anything next start spawns.
    detached: true,
  });
  const output = collect(child);
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const server: NextServer = { url, stop: () => stop(child, exited) };

  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`next start exited before it was ready:\n${output()}`);
    }
    const res = await fetch(`${url}${readyPath}`).catch(() => null);
    if (res?.ok) return server;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await server.stop();
  throw new Error(`next start was not ready within ${timeoutMs} ms:\n${output()}`);
}

async function stop(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // Already gone.
    }
  };
  signalGroup('SIGTERM');
  const timer = setTimeout(() => signalGroup('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

function collect(child: ChildProcess): () => string {
  let text = '';
  const append = (chunk: Buffer) => {
    text = (text + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  return () => text;
}
