import { type ChainSigning, loadSigning } from './plan.js';

/** DOT: sr25519 messages only (docs/decisions.md: no extrinsic format to judge under a policy). */
export const polkadotSigning: ChainSigning = {
  signatureEncoding: 'hex',

  async message(_wallet, bytes) {
    const { signPolkadotMessage } = await loadSigning();
    return async (secret) => signPolkadotMessage(bytes, secret);
  },
};
