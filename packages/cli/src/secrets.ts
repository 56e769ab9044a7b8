import { readFile } from 'node:fs/promises';
import path from 'node:path';

/** A secret's value and where it came from, for messages. */
export interface Found {
  value: string;
  from: string;
}

export interface CliSecrets {
  secret: Found | undefined;
  vaultKey: Found | undefined;
}

/**
 * `LATCHKEY_SECRET` and `LATCHKEY_VAULT_KEY` from the environment (a `.env` is loaded into it
 * first), otherwise from `secrets.json` in the data folder, where a host that generates its own
 * (the example server) keeps them. Read only: the CLI never invents a secret the server lacks.
 */
export async function readSecrets(env: NodeJS.ProcessEnv, dataDir: string): Promise<CliSecrets> {
  const file = path.join(dataDir, 'secrets.json');
  let stored: { secret?: unknown; vault_key?: unknown } = {};
  try {
    stored = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`cannot read ${file}: ${err}`);
  }
  const pick = (name: string, storedValue: unknown): Found | undefined => {
    if (env[name]) return { value: env[name], from: name };
    return typeof storedValue === 'string' ? { value: storedValue, from: file } : undefined;
  };
  return {
    secret: pick('LATCHKEY_SECRET', stored.secret),
    vaultKey: pick('LATCHKEY_VAULT_KEY', stored.vault_key),
  };
}
