import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export interface Child<T> {
  info: T;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Runs a TypeScript entry point in its own process and waits for the JSON line it prints when ready. */
export function startChild<T>(entry: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Child<T>> {
  const file = fileURLToPath(new URL(entry, import.meta.url));
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', file, ...args], {
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
