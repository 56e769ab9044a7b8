import path from 'node:path';
import { CHAINS, type ChainsOptions } from '@latchkey/core';

/** Everything the example server reads from its environment, with the defaults of a new checkout. */
export interface ServerConfig {
  port: number;
  host: string;
  dataDir: string;
  /** Real Postgres when set; embedded PGlite under `dataDir` otherwise. */
  databaseUrl: string | undefined;
  /** Postgres schema for Latchkey's tables (default `public`), to share a database with other apps. */
  databaseSchema: string | undefined;
  /** Redis for the rate limits shared by every node (`LATCHKEY_REDIS_URL`); the database when unset. */
  redisUrl: string | undefined;
  /** RPC endpoints for wallet balances: `LATCHKEY_RPC_<CHAIN>` (mainnet) and `…_TESTNET`. */
  chains: ChainsOptions;
  /**
   * Webhooks may reach loopback and private addresses (`LATCHKEY_WEBHOOKS_ALLOW_PRIVATE_TARGETS=1`),
   * for a receiver on this machine in development; never on a server that hosts other people's Apps.
   */
  webhooksAllowPrivateTargets: boolean;
  /**
   * OAuth providers may be `http` on loopback and private addresses
   * (`LATCHKEY_OAUTH_ALLOW_INSECURE_ISSUERS=1`), for a provider on this machine in development or a
   * test; otherwise every issuer and endpoint must be `https`.
   */
  oauthAllowInsecureIssuers: boolean;
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const port = Number(env.PORT ?? 8787);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`PORT must be a port number, got ${env.PORT}`);
  return {
    port,
    host: env.HOST ?? '127.0.0.1',
    // `npm start` at the root runs this in the workspace folder; INIT_CWD is where the user typed it.
    dataDir: path.resolve(env.INIT_CWD ?? process.cwd(), env.LATCHKEY_DATA_DIR ?? '.latchkey'),
    databaseUrl: env.DATABASE_URL || undefined,
    databaseSchema: env.LATCHKEY_DB_SCHEMA || undefined,
    redisUrl: env.LATCHKEY_REDIS_URL || undefined,
    chains: chainsFromEnv(env),
    webhooksAllowPrivateTargets: flagFromEnv(env, 'LATCHKEY_WEBHOOKS_ALLOW_PRIVATE_TARGETS'),
    oauthAllowInsecureIssuers: flagFromEnv(env, 'LATCHKEY_OAUTH_ALLOW_INSECURE_ISSUERS'),
  };
}

/** `1` on, `0` or unset off; anything else is a mistake worth stopping for, on a security switch. */
function flagFromEnv(env: NodeJS.ProcessEnv, name: string): boolean {
  const value = env[name];
  if (value === undefined || value === '' || value === '0') return false;
  if (value === '1') return true;
  throw new Error(`${name} must be 1 or 0, got ${value}`);
}

/**
 * `LATCHKEY_RPC_ETHEREUM`, `…_AVALANCHE`, `…_POLYGON`, `…_SOLANA`, `…_POLKADOT` (an Asset Hub
 * endpoint) and `…_STELLAR` (a Horizon base URL) for mainnet wallets; the same names ending in
 * `_TESTNET` for testnet wallets (docs/balances.md). A chain left unset answers its balance
 * reads with 503 `chain_not_configured`.
 */
export function chainsFromEnv(env: NodeJS.ProcessEnv): ChainsOptions {
  const chains: Record<string, { mainnet?: string; testnet?: string }> = {};
  for (const chain of CHAINS) {
    for (const [network, suffix] of [
      ['mainnet', ''],
      ['testnet', '_TESTNET'],
    ] as const) {
      const name = `LATCHKEY_RPC_${chain.toUpperCase()}${suffix}`;
      const url = env[name];
      if (!url) continue;
      if (!/^https?:\/\/[^/]/.test(url) || !URL.canParse(url))
        throw new Error(`${name} must be an http(s) URL`);
      chains[chain] = { ...chains[chain], [network]: url };
    }
  }
  const timeout = env.LATCHKEY_RPC_TIMEOUT_MS;
  if (timeout !== undefined && !(/^[1-9]\d{0,5}$/.test(timeout) && Number(timeout) <= 120_000))
    throw new Error(`LATCHKEY_RPC_TIMEOUT_MS must be 1 to 120000 milliseconds, got ${timeout}`);
  return { ...chains, ...(timeout ? { timeoutMs: Number(timeout) } : {}) };
}
