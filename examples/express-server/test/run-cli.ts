import { execFile } from 'node:child_process';
import path from 'node:path';
import { childEnv, exampleDir } from './spawn-server.js';

/** @latchkey/cli's bin, as `npx latchkey` runs it in this repository. */
const bin = path.resolve(exampleDir, '../../packages/cli/bin/latchkey.js');

/** Runs the `latchkey` bin with the example's variables from `env` only; resolves with its exit and output. */
export function runCli(
  args: string[],
  env: Record<string, string | undefined>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { cwd: exampleDir, env: childEnv(env), timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
