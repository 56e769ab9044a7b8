import { utf8 } from '../../crypto/encoding.js';
import { type ChainSigning, digest, loadSigning, transactionPlanner } from './plan.js';

/** Ethereum: EIP-191 messages, EIP-1559 and legacy (EIP-155) transactions, EIP-712 v4 typed data. */
export const ethereumSigning: ChainSigning = {
  signatureEncoding: 'hex',

  async message(_wallet, bytes) {
    const { signEthereumMessage } = await loadSigning();
    return async (secret) => signEthereumMessage(bytes, secret);
  },

  transaction: transactionPlanner('eth_transaction', async (_wallet, eth) => {
    const { ethTransactionFacts, parseEthTransaction, signEthTransaction } = await loadSigning();
    const tx = parseEthTransaction(
      'serialized' in eth
        ? eth
        : { ...eth, type: eth.type === 0 ? 'legacy' : eth.type === 2 ? 'eip1559' : eth.type },
    );
    return {
      method: 'sign_transaction',
      payload_digest: digest(tx.toBytes({ includeSignature: false })),
      facts: { evm: ethTransactionFacts(tx) },
      sign: async (secret) => {
        const signed = signEthTransaction(tx, secret);
        return { signed_transaction: signed.signedTransaction, transaction_hash: signed.transactionHash };
      },
    };
  }),

  async typedData(_wallet, input) {
    const { boundTypedData, signEthereumTypedData, typedDataFacts } = await loadSigning();
    // The typed data as received, re-serialized: JSON has no byte form of its own.
    const json = JSON.stringify(input.typed_data);
    // Bounded before anything else reads it: the signing library's work grows faster than the bytes.
    const typed = { ...input.typed_data, types: boundTypedData(input.typed_data, json) };
    const evm = typedDataFacts(typed);
    return {
      method: 'sign_typed_data',
      payload_digest: digest(utf8(json)),
      facts: { evm },
      sign: async (secret) => signEthereumTypedData(typed, secret),
    };
  },
};
