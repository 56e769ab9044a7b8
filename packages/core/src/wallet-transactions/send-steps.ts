import type { ApiKeyKind } from '../apps/repo.js';
import type { Kernel } from '../kernel.js';
import type { SigningRequest } from '../shared/signing-request.js';
import type { WalletRecord } from '../wallets/repo.js';
import type { SignTransactionRequest } from '../wallets/schema.js';
import { planTransaction, signingRequest, walletCustody } from '../wallets/service.js';
import type {
  SignatureEntry,
  WalletTransactionPatch,
  WalletTransactionRecord,
  WalletTransactionStatus,
} from './repo.js';

/**
 * The wallets' policy gate, an allowed signature's audit entry held for the caller to write
 * (wallet-policies' `signUnderHeld`); refusals and failures are written by the gate.
 */
export type SignUnderHeld = <T>(
  request: SigningRequest,
  sign: () => Promise<T>,
) => Promise<{ result: T; entry: SignatureEntry }>;

/**
 * What every chain's send does with storage and the gate: signing as the wallets'
 * signTransaction does, and each step of the row written with what it implies in one statement
 * where the storage can. EVM (service.ts) and Solana (solana-send.ts) share it.
 */
export function sendSteps(k: Kernel, signUnderHeld: SignUnderHeld) {
  const repo = k.storage.walletTransactions;
  const custody = walletCustody(k);

  return {
    /**
     * `transition` of `t` (held as stored) with what it implies in one step where the storage
     * can (WalletTransactionRepo.advance): `signature`, the audit entry of the signature the
     * patch stores, and the transition's event. Elsewhere the entry, then the transition.
     */
    async advance(
      t: WalletTransactionRecord,
      from: readonly WalletTransactionStatus[],
      patch: WalletTransactionPatch,
      signature: SignatureEntry | null = null,
    ): Promise<WalletTransactionRecord | null> {
      if (repo.advance) {
        try {
          return await repo.advance(t, from, patch, signature);
        } catch (error) {
          // The signature was made and its cap spend counted: its entry stays in the trail even
          // when the step that carried it failed (nothing is broadcast; the step's error answers).
          if (signature) await k.storage.walletSignatures.insert(signature).catch(() => undefined);
          throw error;
        }
      }
      if (signature) await k.storage.walletSignatures.insert(signature);
      return repo.transition(t.app_id, t.id, from, patch);
    },

    /**
     * As the wallets' signTransaction (the same plan, gate and key) for a wallet the caller
     * holds; an allowed signature's audit entry comes back unwritten, for the `signed` write.
     */
    async signHeld(wallet: WalletRecord, input: SignTransactionRequest, keyKind: ApiKeyKind) {
      const plan = await planTransaction(wallet, input);
      return signUnderHeld(signingRequest(wallet, plan, keyKind), () =>
        custody.withSecret(wallet, plan.sign),
      );
    },
  };
}
