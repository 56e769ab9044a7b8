import type { JWK, JWTVerifyGetKey } from 'jose';
import { findJwk, importVerificationKey } from './key-import.js';

/** An unknown `kid` reloads the App's keys at most this often: a flood of made-up kids stays cheap. */
export const KEY_REFRESH_GAP_SECONDS = 5;
const MAX_APPS = 10_000;

interface Loaded {
  keys: JWK[];
  loadedAt: number;
}

/**
 * The public keys that verify each App's session JWTs, held in memory for the life of the
 * process (keys are never deleted, only retired, so a held key stays right). A JWT signed by a
 * key this process has not seen (made by another process) triggers one reload, bounded by
 * `KEY_REFRESH_GAP_SECONDS` per App; keys this process makes itself are added as they are made.
 */
export function appVerificationKeys(load: (appId: string) => Promise<JWK[]>, now: () => number) {
  const apps = new Map<string, Loaded | Promise<Loaded>>();

  function reload(appId: string): Promise<Loaded> {
    const loading = load(appId).then(
      (keys) => {
        const loaded = { keys, loadedAt: now() };
        apps.set(appId, loaded);
        return loaded;
      },
      (err: unknown) => {
        apps.delete(appId);
        throw err;
      },
    );
    if (!apps.has(appId) && apps.size >= MAX_APPS) apps.delete(apps.keys().next().value as string);
    apps.set(appId, loading);
    return loading;
  }

  return {
    /** A `jwtVerify` key getter for the App. */
    getter(appId: string): JWTVerifyGetKey {
      return async (header) => {
        let loaded = await (apps.get(appId) ?? reload(appId));
        let jwk = findJwk(loaded.keys, header);
        if (!jwk && now() - loaded.loadedAt >= KEY_REFRESH_GAP_SECONDS) {
          const current = apps.get(appId);
          // Callers that missed together share one reload.
          loaded = await (current instanceof Promise
            ? current
            : current !== undefined && current !== loaded
              ? current
              : reload(appId));
          jwk = findJwk(loaded.keys, header);
        }
        if (!jwk || header.alg === undefined) throw new Error(`unknown signing key ${header.kid ?? ''}`);
        return importVerificationKey(jwk, header.alg);
      };
    },

    /** A key this process just made or loaded for signing: known at once, no reload needed. */
    remember(appId: string, jwk: JWK): void {
      const loaded = apps.get(appId);
      if (!loaded || loaded instanceof Promise || loaded.keys.some((k) => k.kid === jwk.kid)) return;
      apps.set(appId, { keys: [jwk, ...loaded.keys], loadedAt: loaded.loadedAt });
    },
  };
}
