import { decodeTransaction, encodeTransaction } from '../../chains/solana-encoding.js';
import { LatchkeyError } from '../../errors.js';
import { type ChainSigning, digest, loadSigning, transactionPlanner } from './plan.js';

/** Solana: ed25519 off-chain messages, legacy and v0 transactions the wallet signs. */
export const solanaSigning: ChainSigning = {
  signatureEncoding: 'base58',

  async message(wallet, bytes) {
    const { signSolanaMessage, startsWithSolanaMessage, transactionAsMessage } = await loadSigning();
    // Refused before the policy gate and the key, as the signer would refuse it after them.
    if (startsWithSolanaMessage(bytes)) throw transactionAsMessage();
    return async (secret) => (await signSolanaMessage(bytes, secret, wallet.public_address)).signature;
  },

  transaction: transactionPlanner('sol_transaction', async (wallet, { transaction, encoding }) => {
    const { signSolanaTransaction, solanaTransactionFacts } = await loadSigning();
    const bytes = decodeTransaction(transaction, encoding);
    const { walletSigns, ...solana } = solanaTransactionFacts(bytes, wallet.public_address);
    if (!walletSigns)
      throw new LatchkeyError('wallet_not_a_signer', undefined, { field: 'sol_transaction.transaction' });
    return {
      method: 'sign_transaction',
      payload_digest: digest(bytes),
      facts: { solana },
      sign: async (secret) => {
        const signed = await signSolanaTransaction(bytes, secret, wallet.public_address);
        return {
          signature: signed.signature,
          signed_transaction: encodeTransaction(signed.signedTransaction, encoding),
        };
      },
    };
  }),
};
