import {
  chainModules,
  type DerivedKey,
  mnemonicFromEntropy,
  type Network,
  normalizeMnemonic,
  wipe,
} from '../chains/index.js';
import { LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { SeedRecord, WalletRecord, WalletType } from './repo.js';
import type { ImportWalletRequest } from './schema.js';

const seedContext = (appId: string, userId: string) => `latchkey/seed/${appId}/${userId}`;
const keyContext = (w: Pick<WalletRecord, 'app_id' | 'id'>) => `latchkey/wallet-key/${w.app_id}/${w.id}`;

/**
 * A key made or read for a new wallet, not sealed yet: `seal` seals it to the wallet it is
 * given (the vault binds it to that App and wallet id) and wipes it. Called once, right away.
 */
export interface UnsealedKey {
  address: string;
  path: string | null;
  seal(wallet: Pick<WalletRecord, 'app_id' | 'id'>): Promise<string>;
}

export type WalletCustody = ReturnType<typeof walletCustody>;

/**
 * The wallets' key material: seeds and keys made, sealed and opened through the KeyVault, never
 * kept in the clear. Signing and export see a key only inside `withSecret` and `withKey`.
 */
export function walletCustody(k: Kernel) {
  /** The key of the wallet of the type under this entropy (wiped here), not sealed yet. */
  async function derive(entropy: Uint8Array, walletType: WalletType, network: Network): Promise<UnsealedKey> {
    let derived: DerivedKey;
    try {
      derived = await chainModules[walletType].deriveFromMnemonicAsync(mnemonicFromEntropy(entropy), {
        network,
      });
    } finally {
      wipe(entropy);
    }
    return {
      address: derived.address,
      path: derived.path,
      async seal(wallet) {
        const encoded = new TextEncoder().encode(
          chainModules[walletType].encodePrivateKey(derived.privateKey, { network }),
        );
        try {
          return await k.vault.seal(encoded, keyContext(wallet));
        } finally {
          wipe(derived.privateKey, encoded);
        }
      },
    };
  }

  /** Runs `use` with the wallet's key, unsealed for the call only and wiped after. */
  async function withKey<T>(wallet: WalletRecord, use: (key: DerivedKey) => T | Promise<T>): Promise<T> {
    let key: DerivedKey;
    if (wallet.sealed_private_key) {
      const raw = await k.vault.open(wallet.sealed_private_key, keyContext(wallet));
      try {
        key = chainModules[wallet.wallet_type].fromPrivateKey(new TextDecoder().decode(raw), {
          network: wallet.network,
        });
      } finally {
        wipe(raw);
      }
    } else if (wallet.key_source === 'seed') {
      const seed = await k.storage.seeds.get(wallet.app_id, wallet.user_id);
      if (!seed) throw new LatchkeyError('internal_error', 'The seed of this wallet is missing.');
      const entropy = await k.vault.open(seed.sealed_entropy, seedContext(wallet.app_id, wallet.user_id));
      try {
        key = await chainModules[wallet.wallet_type].deriveFromMnemonicAsync(mnemonicFromEntropy(entropy), {
          network: wallet.network,
        });
      } finally {
        wipe(entropy);
      }
    } else {
      throw new LatchkeyError('wallet_read_only');
    }
    try {
      if (key.address !== wallet.public_address)
        throw new LatchkeyError('internal_error', 'Key and wallet address disagree.');
      return await use(key);
    } finally {
      wipe(key.privateKey);
    }
  }

  return {
    /**
     * A new seed for the user (256 bits of entropy: 24 words), sealed to them, and the key of
     * their wallet of the type derived from it: the entropy just drawn is used as it is, not
     * opened again. Nothing is stored: the caller stores the seed with the wallet.
     */
    async newSeed(
      appId: string,
      userId: string,
      walletType: WalletType,
      network: Network,
    ): Promise<{ seed: SeedRecord; key: UnsealedKey }> {
      const entropy = k.random.bytes(32);
      let seed: SeedRecord;
      try {
        seed = {
          id: k.id('seed'),
          app_id: appId,
          user_id: userId,
          sealed_entropy: await k.vault.seal(entropy, seedContext(appId, userId)),
          created_at: k.now(),
        };
      } catch (err) {
        wipe(entropy);
        throw err;
      }
      return { seed, key: await derive(entropy, walletType, network) };
    },

    /**
     * The key of the user's wallet of the type, derived from their stored seed. The derived key
     * is sealed on the wallet too: signing then costs one vault open, not the BIP39 seed stretch
     * (2048 rounds of PBKDF2) per signature. The seed stays the root.
     */
    async deriveFromSeed(seed: SeedRecord, walletType: WalletType, network: Network): Promise<UnsealedKey> {
      const entropy = await k.vault.open(seed.sealed_entropy, seedContext(seed.app_id, seed.user_id));
      return derive(entropy, walletType, network);
    },

    /**
     * An imported key, or one derived from an imported mnemonic by the path created wallets
     * use, kept in one canonical encoding whatever form it arrived in.
     */
    async readImported(
      input: Pick<ImportWalletRequest, 'wallet_type' | 'mnemonic' | 'private_key'>,
      network: Network,
    ): Promise<UnsealedKey> {
      const chain = chainModules[input.wallet_type];
      const key =
        input.mnemonic !== undefined
          ? await chain.deriveFromMnemonicAsync(normalizeMnemonic(input.mnemonic), { network })
          : chain.fromPrivateKey(input.private_key!.trim(), { network });
      const secret = chain.encodePrivateKey(key.privateKey, { network });
      wipe(key.privateKey);
      return {
        address: key.address,
        path: key.path,
        seal: (wallet) => k.vault.seal(new TextEncoder().encode(secret), keyContext(wallet)),
      };
    },

    /**
     * Runs `use` with the wallet's raw secret, unsealed for the call only and wiped after. The
     * vault's AEAD binds a sealed key to this App and wallet, so the key's address is not derived
     * again (that would cost as much as the signature); the ed25519 signers check it for free.
     */
    async withSecret<T>(wallet: WalletRecord, use: (secret: Uint8Array) => Promise<T>): Promise<T> {
      if (!wallet.sealed_private_key) return withKey(wallet, (key) => use(key.privateKey));
      const raw = await k.vault.open(wallet.sealed_private_key, keyContext(wallet));
      let secret: Uint8Array;
      try {
        secret = chainModules[wallet.wallet_type].decodeSecret(new TextDecoder().decode(raw), {
          network: wallet.network,
        });
      } catch (cause) {
        throw new LatchkeyError('internal_error', 'The sealed key of this wallet does not decode.', {
          cause,
        });
      } finally {
        wipe(raw);
      }
      try {
        return await use(secret);
      } finally {
        wipe(secret);
      }
    },

    withKey,
  };
}
