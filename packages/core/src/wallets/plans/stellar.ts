import { bytesToHex } from '@noble/hashes/utils.js';
import { base64 } from '@scure/base';
import { strKeyDecode, strKeyVersion } from '../../chains/index.js';
import { type ChainSigning, digest, ed25519WalletKey, loadSigning, transactionPlanner } from './plan.js';

/** XLM: SEP-53 messages and transaction envelopes (v0, v1, fee bump). */
export const stellarSigning: ChainSigning = {
  signatureEncoding: 'base64',

  async message(wallet, bytes) {
    const { signStellarMessage } = await loadSigning();
    return async (secret) => {
      await ed25519WalletKey(secret, strKeyDecode(strKeyVersion.publicKey, wallet.public_address));
      return signStellarMessage(bytes, secret);
    };
  },

  transaction: transactionPlanner('xlm_transaction', async (wallet, xlm) => {
    const { parseStellarEnvelope, STELLAR_PASSPHRASES, signStellarEnvelope } = await loadSigning();
    const envelope = parseStellarEnvelope(xlm.transaction);
    const passphrase = xlm.network_passphrase ?? STELLAR_PASSPHRASES[wallet.network];
    const publicKey = strKeyDecode(strKeyVersion.publicKey, wallet.public_address);
    return {
      method: 'sign_transaction',
      payload_digest: digest(envelope.bytes),
      facts: {},
      sign: async (secret) => {
        await ed25519WalletKey(secret, publicKey);
        const signed = await signStellarEnvelope(envelope, passphrase, secret, publicKey!);
        return {
          signature: base64.encode(signed.signature),
          signed_transaction: signed.signedEnvelope,
          transaction_hash: bytesToHex(signed.hash),
        };
      },
    };
  }),
};
