import type { ApiKeyKind } from '../apps/repo.js';
import {
  chainModules,
  type DerivedKey,
  mnemonicFromEntropy,
  normalizeMnemonic,
  wipe,
} from '../chains/index.js';
import { LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import { requireUser } from '../shared/require-user.js';
import { type SigningRequest, type SignUnder, signWithoutPolicies } from '../shared/signing-request.js';
import { encryptForRecipient } from './export/index.js';
import type { SeedRecord, WalletRecord, WalletType } from './repo.js';
import type {
  ImportWalletRequest,
  SignMessageRequest,
  SignTransactionRequest,
  SignTypedDataRequest,
  Wallet,
} from './schema.js';
import { planMessage, planTransaction, planTypedData, type SigningPlan } from './signing-plans.js';

/** The wallet as the spec's Wallet object. */
export const walletView = (w: WalletRecord): Wallet => ({
  id: w.id,
  app_id: w.app_id,
  user_id: w.user_id,
  public_address: w.public_address,
  wallet_type: w.wallet_type,
  verified: w.verified,
  is_default: w.is_default,
  is_read_only: w.is_read_only,
  is_imported: w.is_imported,
  updated_at: w.updated_at,
  created_at: w.created_at,
});

const seedContext = (appId: string, userId: string) => `latchkey/seed/${appId}/${userId}`;
const keyContext = (w: Pick<WalletRecord, 'app_id' | 'id'>) => `latchkey/wallet-key/${w.app_id}/${w.id}`;

export type WalletService = ReturnType<typeof walletService>;

/** `signUnder` gates every signature (wallet policies); by default nothing is refused. */
export function walletService(
  k: Kernel,
  { signUnder = signWithoutPolicies }: { signUnder?: SignUnder } = {},
) {
  async function requireWallet(appId: string, walletId: string) {
    const wallet = await k.storage.wallets.get(appId, walletId);
    if (!wallet) throw new LatchkeyError('wallet_not_found');
    return wallet;
  }

  /**
   * The user's seed and its entropy, opened; or made (24 words, sealed) on their first wallet,
   * when the entropy just drawn is used as it is rather than opened again. The caller wipes it.
   * No read first: storing the seed if absent answers with the one there (one statement on SQL),
   * and a user who has one costs only an unused seal of 32 random bytes.
   */
  async function seedEntropy(
    appId: string,
    userId: string,
  ): Promise<{ seed: SeedRecord; entropy: Uint8Array }> {
    const context = seedContext(appId, userId);
    // 256 bits of entropy: the user's 24-word mnemonic.
    const entropy = k.random.bytes(32);
    const id = k.id('seed');
    let seed: SeedRecord;
    try {
      seed = await k.storage.seeds.insertIfAbsent({
        id,
        app_id: appId,
        user_id: userId,
        sealed_entropy: await k.vault.seal(entropy, context),
        created_at: k.now(),
      });
    } catch (err) {
      wipe(entropy);
      throw err;
    }
    if (seed.id === id) return { seed, entropy };
    // Another request made the user's seed first: theirs is the one.
    wipe(entropy);
    return { seed, entropy: await k.vault.open(seed.sealed_entropy, context) };
  }

  async function requireSigningWallet(appId: string, walletId: string) {
    const wallet = await requireWallet(appId, walletId);
    if (wallet.is_read_only || wallet.key_source === 'external') throw new LatchkeyError('wallet_read_only');
    return wallet;
  }

  /**
   * Runs `use` with the wallet's raw secret, unsealed for the call only and wiped after. The
   * vault's AEAD binds a sealed key to this App and wallet, so the key's address is not derived
   * again (that would cost as much as the signature); the ed25519 signers check it for free.
   */
  async function withSecret<T>(wallet: WalletRecord, use: (secret: Uint8Array) => Promise<T>): Promise<T> {
    if (!wallet.sealed_private_key) return withKey(wallet, (key) => use(key.privateKey));
    const raw = await k.vault.open(wallet.sealed_private_key, keyContext(wallet));
    let secret: Uint8Array;
    try {
      secret = chainModules[wallet.wallet_type].decodeSecret(new TextDecoder().decode(raw), {
        network: wallet.network,
      });
    } catch (cause) {
      throw new LatchkeyError('internal_error', 'The sealed key of this wallet does not decode.', { cause });
    } finally {
      wipe(raw);
    }
    try {
      return await use(secret);
    } finally {
      wipe(secret);
    }
  }

  /** The policies judge the plan's facts before any key is opened; the gate records the outcome. */
  function signUnderPlan<R>(wallet: WalletRecord, plan: SigningPlan<R>, keyKind: ApiKeyKind): Promise<R> {
    const request: SigningRequest = {
      app_id: wallet.app_id,
      wallet,
      chain: wallet.wallet_type,
      method: plan.method,
      payload_digest: plan.payload_digest,
      key_kind: keyKind,
      ...plan.facts,
    };
    return signUnder(request, () => withSecret(wallet, plan.sign));
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
    /** The user's default wallet of the type, created (with the user's seed, when new) if absent. */
    async create(appId: string, input: { user_id: string; wallet_type: WalletType }): Promise<Wallet> {
      const found = await k.storage.wallets.getDefault(appId, input.user_id, input.wallet_type);
      if (found) return walletView(found);
      // No read of the user first: storing the seed or the wallet says user_not_found (a foreign
      // key on SQL), in the statement that has to run anyway.
      const app = await k.app(appId);
      const network = app.settings.wallets.network;
      const { seed, entropy } = await seedEntropy(appId, input.user_id);
      let derived: DerivedKey;
      try {
        derived = await chainModules[input.wallet_type].deriveFromMnemonicAsync(
          mnemonicFromEntropy(entropy),
          {
            network,
          },
        );
      } finally {
        wipe(entropy);
      }
      const now = k.now();
      const id = k.id('wallet');
      // The derived key is sealed on the wallet too: signing then costs one vault open, not the
      // BIP39 seed stretch (2048 rounds of PBKDF2) per signature. The seed stays the root.
      const encoded = new TextEncoder().encode(
        chainModules[input.wallet_type].encodePrivateKey(derived.privateKey, { network }),
      );
      let sealed: string;
      try {
        sealed = await k.vault.seal(encoded, keyContext({ app_id: appId, id }));
      } finally {
        wipe(derived.privateKey, encoded);
      }
      const { wallet } = await k.storage.wallets.createDefaultIfAbsent({
        id,
        app_id: appId,
        user_id: input.user_id,
        wallet_type: input.wallet_type,
        network,
        public_address: derived.address,
        key_source: 'seed',
        derivation_path: derived.path,
        key_id: seed.id,
        sealed_private_key: sealed,
        is_default: true,
        is_imported: false,
        is_read_only: false,
        verified: true,
        created_at: now,
        updated_at: now,
      });
      return walletView(wallet);
    },

    async get(appId: string, walletId: string): Promise<Wallet> {
      return walletView(await requireWallet(appId, walletId));
    },

    async list(
      appId: string,
      query: { user_id?: string | undefined; limit?: number | undefined; cursor?: string | undefined },
    ) {
      const page = await k.storage.wallets.list(appId, {
        userId: query.user_id,
        limit: query.limit ?? 100,
        after: query.cursor,
      });
      return { wallets: page.wallets.map(walletView), next_cursor: page.next_cursor };
    },

    /**
     * Imports a key (or a mnemonic, derived by the same path as created wallets): the user's
     * default of the type when they have none, an extra wallet otherwise.
     */
    async import(appId: string, input: ImportWalletRequest): Promise<Wallet> {
      if ((input.mnemonic === undefined) === (input.private_key === undefined)) {
        throw new LatchkeyError('missing_field', 'Send exactly one of mnemonic and private_key.', {
          field: 'mnemonic',
        });
      }
      await requireUser(k.storage.users, appId, input.user_id);
      const app = await k.app(appId);
      const network = app.settings.wallets.network;
      const chain = chainModules[input.wallet_type];
      const key =
        input.mnemonic !== undefined
          ? await chain.deriveFromMnemonicAsync(normalizeMnemonic(input.mnemonic), { network })
          : chain.fromPrivateKey(input.private_key!.trim(), { network });
      // Kept in one canonical encoding, whatever form it arrived in.
      const secret = chain.encodePrivateKey(key.privateKey, { network });
      wipe(key.privateKey);
      const now = k.now();
      const record: WalletRecord = {
        id: k.id('wallet'),
        app_id: appId,
        user_id: input.user_id,
        wallet_type: input.wallet_type,
        network,
        public_address: key.address,
        key_source: 'imported',
        derivation_path: input.mnemonic !== undefined ? key.path : null,
        key_id: null,
        sealed_private_key: null,
        is_default: false,
        is_imported: true,
        is_read_only: false,
        verified: true,
        created_at: now,
        updated_at: now,
      };
      record.key_id = record.id;
      record.sealed_private_key = await k.vault.seal(new TextEncoder().encode(secret), keyContext(record));
      if (await k.storage.wallets.findByAddress(appId, input.wallet_type, key.address))
        throw new LatchkeyError('duplicate_wallet');
      const { wallet, created } = await k.storage.wallets.createDefaultIfAbsent({
        ...record,
        is_default: true,
      });
      if (created) return walletView(wallet);
      if (!(await k.storage.wallets.insert(record)).inserted) throw new LatchkeyError('duplicate_wallet');
      return walletView(record);
    },

    /** The wallet's private key, encrypted to the caller's public key: never in the clear. */
    async export(appId: string, walletId: string, recipientPublicKey: string) {
      const wallet = await requireWallet(appId, walletId);
      const recipient = decodeRecipientKey(recipientPublicKey);
      const exported = await withKey(wallet, (key) => {
        const plaintext = new TextEncoder().encode(
          chainModules[wallet.wallet_type].encodePrivateKey(key.privateKey, { network: wallet.network }),
        );
        try {
          return {
            wallet_id: wallet.id,
            format: 'private_key' as const,
            ...encryptForRecipient(plaintext, recipient, { random: k.random }),
          };
        } finally {
          wipe(plaintext);
        }
      });
      // Recorded before the key leaves: an export the App cannot see never happens.
      await k.emit({
        app_id: appId,
        type: 'wallet.exported',
        data: { user_id: wallet.user_id, wallet_id: wallet.id, wallet_type: wallet.wallet_type },
      });
      return exported;
    },

    /**
     * Signs a transaction of the wallet's chain (Solana, EVM, a bitcoin PSBT, a Stellar
     * envelope) with the wallet's key, if the App's policies allow it. `keyKind`: which API key
     * asked (the audit trail keeps it); a direct call is the host's own, as the secret key.
     */
    async signTransaction(
      appId: string,
      walletId: string,
      input: SignTransactionRequest,
      { keyKind = 'secret' }: { keyKind?: ApiKeyKind } = {},
    ) {
      const wallet = await requireSigningWallet(appId, walletId);
      const parts = await signUnderPlan(wallet, await planTransaction(wallet, input), keyKind);
      return {
        wallet_id: wallet.id,
        wallet: {
          ...walletView(wallet),
          wallet_client_type: 'latchkey',
          wallet_pk_id: wallet.key_id ?? wallet.id,
          delegated: false,
        },
        ...parts,
      };
    },

    /** Signs a message as the chain's wallets do (EIP-191, ed25519, sr25519, SEP-53, BIP-322). */
    async signMessage(
      appId: string,
      walletId: string,
      input: SignMessageRequest,
      { keyKind = 'secret' }: { keyKind?: ApiKeyKind } = {},
    ) {
      const wallet = await requireSigningWallet(appId, walletId);
      const signed = await signUnderPlan(wallet, await planMessage(wallet, input), keyKind);
      return { wallet_id: wallet.id, ...signed };
    },

    /** EIP-712 v4 typed data, for ethereum wallets. */
    async signTypedData(
      appId: string,
      walletId: string,
      input: SignTypedDataRequest,
      { keyKind = 'secret' }: { keyKind?: ApiKeyKind } = {},
    ) {
      const wallet = await requireSigningWallet(appId, walletId);
      const signature = await signUnderPlan(wallet, await planTypedData(wallet, input), keyKind);
      return { wallet_id: wallet.id, signature };
    },
  };
}

function decodeRecipientKey(text: string): Uint8Array {
  const hex = text.startsWith('0x') ? text.slice(2) : text;
  const bytes =
    /^[0-9a-fA-F]+$/.test(hex) && hex.length % 2 === 0
      ? Uint8Array.from(hex.match(/../g)!, (b) => parseInt(b, 16))
      : base64url(text);
  if (!bytes || ![32, 33, 65].includes(bytes.length))
    throw new LatchkeyError('invalid_recipient_key', undefined, { field: 'recipient_public_key' });
  return bytes;
}

function base64url(text: string): Uint8Array | undefined {
  // One character past a multiple of four is not base64 at all (atob throws on it).
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(text) || text.replace(/=+$/, '').length % 4 === 1) return undefined;
  return Uint8Array.from(
    atob(
      text.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '') +
        '='.repeat((4 - (text.replace(/=+$/, '').length % 4)) % 4),
    ),
    (c) => c.charCodeAt(0),
  );
}
