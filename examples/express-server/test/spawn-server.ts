import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const exampleDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface DemoKeys {
  app_id: string;
  secret_key: string;
  public_token: string;
}

export interface SpawnedServer {
  url: string;
  /** The demo App, as written to demo-app.json. */
  keys: DemoKeys;
  /** The banner printed at start-up: URL, keys and the curl line. */
  banner: string;
  dataDir: string;
  child: ChildProcess;
  /** Everything printed so far (stdout and stderr), for failure messages. */
  output(): string;
  running(): boolean;
  /** SIGTERM, then the exit; SIGKILL if it has not exited within 10 s. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The environment variables the example reads; never inherited from the shell running the tests. */
const SERVER_VARIABLES = [
  'PORT',
  'HOST',
  'LATCHKEY_DATA_DIR',
  'DATABASE_URL',
  'LATCHKEY_DB_SCHEMA',
  'LATCHKEY_SECRET',
  'LATCHKEY_VAULT_KEY',
  'LATCHKEY_WEBHOOKS_ALLOW_PRIVATE_TARGETS',
  'LATCHKEY_OAUTH_ALLOW_INSECURE_ISSUERS',
];

/** `process.env` without the example's variables, plus `env` (an undefined value leaves one unset). */
export function childEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const base = { ...process.env };
  for (const name of SERVER_VARIABLES) delete base[name];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete base[name];
    else base[name] = value;
  }
  return base;
}

// The same command as `npm start`, read from package.json so the tests follow it.
const startCommand = (): string[] => {
  const pkg = JSON.parse(readFileSync(path.join(exampleDir, 'package.json'), 'utf8'));
  const [program, ...args] = String(pkg.scripts.start).split(/\s+/);
  if (program !== 'node') throw new Error(`unexpected start script: ${pkg.scripts.start}`);
  return args;
};

const live = new Set<ChildProcess>();
// A worker that dies mid-test must not leave servers behind.
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** Starts the example server (PORT=0) on `dataDir`; resolves once it has printed its banner. */
export async function spawnServer(
  dataDir: string,
  env: Record<string, string | undefined> = {},
  timeoutMs = 60_000,
): Promise<SpawnedServer> {
  const child = spawn(process.execPath, startCommand(), {
    cwd: exampleDir,
    env: childEnv({ PORT: '0', LATCHKEY_DATA_DIR: dataDir, ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    }),
  );
  let stdout = '';
  let all = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    all = (all + chunk).slice(-50_000);
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    all = (all + chunk).slice(-50_000);
  });
  const running = () => child.exitCode === null && child.signalCode === null;
  const stop = async () => {
    if (running()) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    const result = await exited;
    clearTimeout(timer);
    return result;
  };

  // The banner ends with the curl line; the server listens before printing it.
  const deadline = Date.now() + timeoutMs;
  let url: string | undefined;
  while (!url) {
    const match = /^Latchkey example server on (http:\/\/\S+) [\s\S]*^ {2}curl .*\n/m.exec(stdout);
    if (match) url = match[1];
    else if (!running()) throw new Error(`the example server exited before it was ready:\n${all}`);
    else if (Date.now() > deadline) {
      await stop();
      throw new Error(`the example server printed no URL within ${timeoutMs} ms:\n${all}`);
    } else await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const keys = JSON.parse(await readFile(path.join(dataDir, 'demo-app.json'), 'utf8')) as DemoKeys;
  return { url, keys, banner: stdout, dataDir, child, output: () => all, running, stop };
}

/** Stops every server still running (for afterAll/afterEach). */
export async function stopAllServers(): Promise<void> {
  await Promise.all(
    [...live].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}

const dataDirs: string[] = [];

/** A fresh, empty data folder; short, so the admin socket path stays under the sun_path limit. */
export async function newDataDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'lk-example-'));
  dataDirs.push(dir);
  return dir;
}

export async function removeDataDirs(): Promise<void> {
  await Promise.all(dataDirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}
