import { base64 } from '@scure/base';
import { LatchkeyError } from '../../errors.js';
import { type ChainSigning, digest, loadSigning, transactionPlanner } from './plan.js';

/** Bitcoin: BIP-322 messages, and the inputs of a PSBT that spend from the wallet's address. */
export const bitcoinSigning: ChainSigning = {
  signatureEncoding: 'base64',

  async message(_wallet, bytes) {
    const { signBitcoinMessage } = await loadSigning();
    return async (secret) => signBitcoinMessage(bytes, secret);
  },

  transaction: transactionPlanner('btc_psbt', async (wallet, { psbt }) => {
    const { parsePsbt, signPsbt } = await loadSigning();
    const parsed = parsePsbt(psbt, wallet.public_address, wallet.network);
    if (parsed.ownInputs.length === 0) {
      throw new LatchkeyError(
        'wallet_not_a_signer',
        "No input of this PSBT spends from the wallet's address.",
        {
          field: 'btc_psbt.psbt',
        },
      );
    }
    return {
      method: 'sign_transaction',
      payload_digest: digest(base64.decode(psbt)),
      facts: { bitcoin: { outputs: parsed.outputs } },
      sign: async (secret) => ({ signed_transaction: signPsbt(parsed, secret) }),
    };
  }),
};
