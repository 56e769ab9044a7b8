import type { ApiKeyKind } from '../apps/repo.js';
import type { Kernel } from '../kernel.js';
import type { SigningRequest, SignUnder } from '../shared/signing-request.js';
import type { WalletCustody } from './custody.js';
import type { WalletRecord } from './repo.js';
import type { SignMessageRequest, SignTransactionRequest, SignTypedDataRequest } from './schema.js';
import { planMessage, planTransaction, planTypedData, type SigningPlan } from './signing-plans.js';
import { signingWallets } from './signing-wallets.js';
import { walletView } from './view.js';

/** What the policy gate judges of a plan: its method, digest and facts, the wallet and the asking key. */
export const signingRequest = (
  wallet: WalletRecord,
  plan: SigningPlan<unknown>,
  keyKind: ApiKeyKind,
): SigningRequest => ({
  app_id: wallet.app_id,
  wallet,
  chain: wallet.wallet_type,
  method: plan.method,
  payload_digest: plan.payload_digest,
  key_kind: keyKind,
  ...plan.facts,
});

/**
 * The three signing calls. Each reads its payload into a plan without a key (signing-plans.ts),
 * has `signUnder` (the wallet policies) judge the plan's facts, and only then opens the key.
 */
export function walletSigning(k: Kernel, custody: WalletCustody, signUnder: SignUnder) {
  const signingWallet = signingWallets(k.storage.wallets);
  /** The policies judge the plan's facts before any key is opened; the gate records the outcome. */
  function signUnderPlan<R>(wallet: WalletRecord, plan: SigningPlan<R>, keyKind: ApiKeyKind): Promise<R> {
    return signUnder(signingRequest(wallet, plan, keyKind), () => custody.withSecret(wallet, plan.sign));
  }

  return {
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
      const wallet = await signingWallet(appId, walletId);
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
      const wallet = await signingWallet(appId, walletId);
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
      const wallet = await signingWallet(appId, walletId);
      const signature = await signUnderPlan(wallet, await planTypedData(wallet, input), keyKind);
      return { wallet_id: wallet.id, signature };
    },
  };
}
