import type { CryptoKey, JWK } from 'jose';
import { utf8 } from '../crypto/encoding.js';
import type { Kernel } from '../kernel.js';
import type { KeyVault } from '../ports/key-vault.js';
import { loadJose } from './jose.js';
import type { SigningKeyRecord } from './repo.js';

const CACHE_SECONDS = 60;

export interface ActiveSigningKey {
  kid: string;
  alg: SigningKeyRecord['alg'];
  privateKey: CryptoKey;
  /** The public half as published in the JWKS. */
  publicJwk: JWK;
}

/** A key as the App's JWKS publishes it. */
export const publishedJwk = (key: SigningKeyRecord): JWK => ({
  ...(key.public_jwk as JWK),
  kid: key.id,
  alg: key.alg,
  use: 'sig',
});

export type SigningKeys = ReturnType<typeof signingKeys>;

/**
 * Each App's session-JWT keys: created on first use, the private half sealed by the KeyVault and
 * unsealed once per process, the public halves published as the App's JWKS. Looked-up keys are
 * cached for a minute, so issuing a JWT costs no storage round trip.
 */
export function signingKeys(k: Kernel, vault: KeyVault) {
  const context = (key: Pick<SigningKeyRecord, 'app_id' | 'id'>) =>
    `latchkey/signing-key/${key.app_id}/${key.id}`;
  const active = new Map<string, { key: ActiveSigningKey; until: number }>();
  const published = new Map<string, { keys: SigningKeyRecord[]; until: number }>();

  async function create(appId: string, alg: SigningKeyRecord['alg']): Promise<SigningKeyRecord> {
    const { exportJWK, generateKeyPair } = await loadJose();
    const { publicKey, privateKey } = await generateKeyPair(alg, {
      extractable: true,
      ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}),
    });
    const privateJwk = await exportJWK(privateKey);
    const record: SigningKeyRecord = {
      id: k.id('key'),
      app_id: appId,
      alg,
      public_jwk: { ...(await exportJWK(publicKey)) },
      sealed_private_key: '',
      created_at: k.now(),
      retired_at: null,
    };
    record.sealed_private_key = await vault.seal(utf8(JSON.stringify(privateJwk)), context(record));
    published.delete(appId);
    return k.storage.signingKeys.insertIfNoActive(record);
  }

  async function unseal(record: SigningKeyRecord): Promise<ActiveSigningKey> {
    const { importJWK } = await loadJose();
    const jwk = JSON.parse(
      new TextDecoder().decode(await vault.open(record.sealed_private_key, context(record))),
    ) as JWK;
    return {
      kid: record.id,
      alg: record.alg,
      privateKey: (await importJWK(jwk, record.alg)) as CryptoKey,
      publicJwk: publishedJwk(record),
    };
  }

  return {
    /** The key that signs the App's JWTs now, created when the App has none. */
    async active(appId: string, alg: SigningKeyRecord['alg']): Promise<ActiveSigningKey> {
      const now = k.now();
      const cached = active.get(appId);
      if (cached && cached.until > now) return cached.key;
      const record = (await k.storage.signingKeys.getActive(appId)) ?? (await create(appId, alg));
      const key = cached?.key.kid === record.id ? cached.key : await unseal(record);
      active.set(appId, { key, until: now + CACHE_SECONDS });
      return key;
    },

    /** Every key that may have signed a live JWT of the App, as a JWKS. */
    async jwks(appId: string, options: { fresh?: boolean } = {}): Promise<{ keys: JWK[] }> {
      const now = k.now();
      let entry = published.get(appId);
      if (!entry || entry.until <= now || options.fresh) {
        entry = { keys: await k.storage.signingKeys.list(appId), until: now + CACHE_SECONDS };
        published.set(appId, entry);
      }
      return { keys: entry.keys.map(publishedJwk) };
    },

    /** Retires the active key; the next JWT is signed by a new one, old JWTs verify until they expire. */
    async rotate(appId: string): Promise<void> {
      await k.storage.signingKeys.retireActive(appId, k.now());
      active.delete(appId);
      published.delete(appId);
    },
  };
}
