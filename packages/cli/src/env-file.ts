import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';

/**
 * Reads `file` (a `.env`) into `env` when it exists, leaving every variable already set alone:
 * the shell, CI or a process manager outrank the file, as with `node --env-file`. Returns the
 * names it set. parseEnv rather than process.loadEnvFile, so the no-override rule is this
 * function's own, not one that differs between Node versions.
 */
export function loadEnvFile(file: string, env: NodeJS.ProcessEnv = process.env): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const set: string[] = [];
  for (const [name, value] of Object.entries(parseEnv(text))) {
    if (env[name] !== undefined || value === undefined) continue;
    env[name] = value;
    set.push(name);
  }
  return set;
}
