import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface LocalSecrets {
  /** The hashing secret for `createLatchkey({ secret })`. */
  secret: string;
  /** The KeyVault master key (version 1), 32 bytes base64url. */
  vault_key: string;
}

/**
 * The example server's secrets: from the environment when set, otherwise generated on first
 * start and kept in the data folder (mode 0600), so restarts keep every key and session valid.
 * Created exclusively: of two processes starting at once, both end up with the same secrets.
 */
export async function loadOrCreateSecrets(
  dataDir: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<LocalSecrets> {
  const file = path.join(dataDir, 'secrets.json');
  const fresh: LocalSecrets = {
    secret: randomBytes(32).toString('base64url'),
    vault_key: randomBytes(32).toString('base64url'),
  };
  // Secrets, keys and the outbox live here: the owner's alone.
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  // mkdir leaves an existing folder's mode alone: a folder made earlier with a looser one
  // (or by hand) is narrowed here, with the database folder inside it.
  await chmod(dataDir, 0o700);
  await chmod(path.join(dataDir, 'pglite'), 0o700).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
  try {
    await writeFile(file, `${JSON.stringify(fresh, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const stored = await readJsonWhenComplete<LocalSecrets>(file);
  return {
    secret: env.LATCHKEY_SECRET ?? stored.secret,
    vault_key: env.LATCHKEY_VAULT_KEY ?? stored.vault_key,
  };
}

/** Reads a JSON file another process may be writing this instant. */
export async function readJsonWhenComplete<T>(file: string): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return JSON.parse(await readFile(file, 'utf8')) as T;
    } catch (err) {
      if (attempt >= 20 || !(err instanceof SyntaxError)) throw err;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}
