import { createLatchkey } from '@latchkey/core';
import { kyselyStorage, pendingMigrations } from '@latchkey/kysely-postgres';
import { type AdminCall, runAdminCall } from './admin-operations.js';
import { adminCallThroughServer, serverRunning } from './admin-socket.js';
import type { CliConfig } from './config.js';
import { databaseExists, openDatabase } from './database.js';
import { readSecrets } from './secrets.js';

/**
 * Runs an App command: through the server that holds the PGlite folder when one answers on its
 * admin socket, otherwise on the database directly, which must be migrated already (the CLI
 * never migrates behind an `app` command: a release's nodes may still run the old schema).
 */
export async function runAppCall(
  config: CliConfig,
  env: NodeJS.ProcessEnv,
  call: AdminCall,
): Promise<unknown> {
  if (!config.databaseUrl) {
    const viaServer = await adminCallThroughServer(config.dataDir, call);
    if (viaServer) return viaServer.result;
    if (await serverRunning(config.dataDir)) {
      throw new Error(
        `a server is running on ${config.dataDir} but did not answer on its admin socket; stop it first (embedded PGlite allows one process)`,
      );
    }
    if (!databaseExists(config))
      throw new Error(`no database in ${config.dataDir} yet: run \`latchkey migrate\``);
  }
  const { secret } = await readSecrets(env, config.dataDir);
  if (!secret) {
    throw new Error(
      'LATCHKEY_SECRET is not set: give the CLI the secret your server uses (in .env or the environment); `latchkey init` makes a new one',
    );
  }
  const db = await openDatabase(config);
  try {
    const source = { ...db.source, ...(config.schema ? { schema: config.schema } : {}) };
    const pending = await pendingMigrations(source);
    if (pending.length > 0) {
      throw new Error(
        `the database has ${pending.length} pending migrations: run \`latchkey migrate\` first`,
      );
    }
    const latchkey = createLatchkey({ storage: await kyselyStorage(source), secret: secret.value });
    try {
      return await runAdminCall(latchkey, call);
    } finally {
      await latchkey.close();
    }
  } finally {
    await db.close();
  }
}
