import type { CryptoKey, JWK, JWTVerifyGetKey } from 'jose';
import { loadJose } from './jose.js';

/**
 * Imported public keys, by everything that identifies them: importing a key costs far more than
 * verifying a signature with it, so each key is imported once per process, however many times
 * (and through however many JWKS documents) it is met. Bounded: the oldest entry goes first.
 */
const MAX_IMPORTED = 1000;
const imported = new Map<string, Promise<CryptoKey>>();

export function importVerificationKey(jwk: JWK, alg: string): Promise<CryptoKey> {
  const id = JSON.stringify([alg, jwk.kid, jwk.kty, jwk.crv, jwk.x, jwk.y, jwk.n, jwk.e]);
  const known = imported.get(id);
  if (known) return known;
  const { d: _private, ...publicJwk } = jwk;
  const key = loadJose().then((jose) => jose.importJWK(publicJwk, alg)) as Promise<CryptoKey>;
  // A key that fails to import (malformed JWK) is not remembered: the next call tries again.
  key.catch(() => imported.delete(id));
  if (imported.size >= MAX_IMPORTED) imported.delete(imported.keys().next().value as string);
  imported.set(id, key);
  return key;
}

/** The JWK of a JWKS a JWT header names: by `kid`, and by `alg` when the JWK states one. */
export function findJwk(keys: readonly JWK[], header: { kid?: string; alg?: string }): JWK | undefined {
  if (header.kid === undefined || header.alg === undefined) return undefined;
  return keys.find((k) => k.kid === header.kid && (k.alg === undefined || k.alg === header.alg));
}

/** A key getter for `jwtVerify` over a JWKS document, its keys imported once (see above). */
export function documentKeys(jwks: { keys: readonly JWK[] }): JWTVerifyGetKey {
  return async (header) => {
    const jwk = findJwk(jwks.keys, header);
    if (!jwk || header.alg === undefined) throw new Error(`no key ${header.kid ?? ''} in the JWKS`);
    return importVerificationKey(jwk, header.alg);
  };
}

/**
 * One remote key set per JWKS URL, kept for the process: jose's remote set caches the document
 * and its imported keys, and refetches (rate-limited) when a JWT names a `kid` it lacks.
 */
const MAX_REMOTE = 100;
const remote = new Map<string, JWTVerifyGetKey>();

export function remoteKeys(url: URL): JWTVerifyGetKey {
  const known = remote.get(url.href);
  if (known) return known;
  const made = loadJose().then((jose) => jose.createRemoteJWKSet(url));
  const set: JWTVerifyGetKey = async (header, token) => (await made)(header, token);
  if (remote.size >= MAX_REMOTE) remote.delete(remote.keys().next().value as string);
  remote.set(url.href, set);
  return set;
}
