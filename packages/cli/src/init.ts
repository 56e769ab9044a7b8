import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { parseEnv } from 'node:util';

const NAMES = ['LATCHKEY_SECRET', 'LATCHKEY_VAULT_KEY'] as const;

/** A fresh hashing secret (43 characters) and vault master key (32 bytes), both base64url. */
export const freshSecrets = (): Record<(typeof NAMES)[number], string> => ({
  LATCHKEY_SECRET: randomBytes(32).toString('base64url'),
  LATCHKEY_VAULT_KEY: randomBytes(32).toString('base64url'),
});

export type InitResult = { ok: true; created: boolean } | { ok: false; present: string[] };

/**
 * Writes a new secret and vault key into `file` (a `.env`). A file that already names either
 * is left untouched: replacing a secret in use makes every stored key, session and sealed wallet
 * unreadable. A `.env` without them gets the two lines appended; a new one is made mode 0600.
 */
export async function initEnvFile(file: string): Promise<InitResult> {
  const existing = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  const present = existing === undefined ? [] : NAMES.filter((name) => name in parseEnv(existing));
  if (present.length > 0) return { ok: false, present };
  const lines = Object.entries(freshSecrets()).map(([name, value]) => `${name}=${value}\n`);
  const text = `# Latchkey (latchkey init): keep these; a new secret invalidates every stored key and token\n${lines.join('')}`;
  if (existing === undefined) {
    // wx: a .env made by someone else meanwhile is never replaced.
    await writeFile(file, text, { mode: 0o600, flag: 'wx' });
    return { ok: true, created: true };
  }
  const separator = existing === '' || existing.endsWith('\n') ? '' : '\n';
  await writeFile(file, `${separator}${text}`, { flag: 'a' });
  return { ok: true, created: false };
}
