import { LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import { requireUser } from '../shared/require-user.js';
import { type SignUnder, signWithoutPolicies } from '../shared/signing-request.js';
import { walletCustody } from './custody.js';
import { exportWallet } from './export/export-wallet.js';
import type { WalletRecord, WalletType } from './repo.js';
import { requireWallet } from './require-wallet.js';
import type { ImportWalletRequest, Wallet } from './schema.js';
import { walletSigning } from './signing.js';
import { walletView } from './view.js';

// What a send signs with, as signTransaction does (wallet-transactions/service.ts).
export { walletCustody } from './custody.js';
export { signingRequest } from './signing.js';
export { planTransaction } from './signing-plans.js';
export { signingWallets } from './signing-wallets.js';
export { walletView } from './view.js';

export type WalletService = ReturnType<typeof walletService>;

/**
 * Wallets: their records made and read here; their keys held by custody.ts (the KeyVault),
 * signed with by signing.ts under `signUnder` (the wallet policies; by default nothing is
 * refused), exported by export/.
 */
export function walletService(
  k: Kernel,
  { signUnder = signWithoutPolicies }: { signUnder?: SignUnder } = {},
) {
  const custody = walletCustody(k);
  const signing = walletSigning(k, custody, signUnder);

  const records = {
    /**
     * The user's default wallet of the type, created (with the user's seed, when new) if absent.
     * Two statements for a new user on SQL: one read (the default and the seed), then the seed
     * and the wallet stored together; one for a user who has the wallet.
     */
    async create(appId: string, input: { user_id: string; wallet_type: WalletType }): Promise<Wallet> {
      const { user_id, wallet_type } = input;
      // Once more only when another request stored the user's seed in between: the next read
      // sees its wallet, or at least its seed.
      for (let attempt = 0; attempt < 3; attempt++) {
        const found = await k.storage.wallets.getDefaultWithSeed(appId, user_id, wallet_type);
        if (found.wallet) return walletView(found.wallet);
        // No read of the user: storing the seed or the wallet says user_not_found (a foreign
        // key on SQL), in the statement that has to run anyway.
        const network = (await k.app(appId)).settings.wallets.network;
        const fresh = found.seed ? null : await custody.newSeed(appId, user_id, wallet_type, network);
        const seed = found.seed ?? fresh!.seed;
        const key = fresh?.key ?? (await custody.deriveFromSeed(seed, wallet_type, network));
        const now = k.now();
        const id = k.id('wallet');
        const wallet: WalletRecord = {
          id,
          app_id: appId,
          user_id,
          wallet_type,
          network,
          public_address: key.address,
          key_source: 'seed',
          derivation_path: key.path,
          key_id: seed.id,
          sealed_private_key: await key.seal({ app_id: appId, id }),
          is_default: true,
          is_imported: false,
          is_read_only: false,
          verified: true,
          created_at: now,
          updated_at: now,
        };
        if (!fresh) return walletView((await k.storage.wallets.createDefaultIfAbsent(wallet)).wallet);
        const stored = await k.storage.wallets.createDefaultWithSeed(seed, wallet);
        if (stored) return walletView(stored);
      }
      throw new LatchkeyError('internal_error', 'The user’s seed kept changing; try again.');
    },

    async get(appId: string, walletId: string): Promise<Wallet> {
      return walletView(await requireWallet(k.storage.wallets, appId, walletId));
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
      const key = await custody.readImported(input, network);
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
      record.sealed_private_key = await key.seal(record);
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
    export(appId: string, walletId: string, recipientPublicKey: string) {
      return exportWallet(k, custody, appId, walletId, recipientPublicKey);
    },
  };
  // No name is in both. (A spread's type lists the later object's members first: so written,
  // the service's type lists the records' calls first, as the API report has them.)
  return { ...signing, ...records };
}
