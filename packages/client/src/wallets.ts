import { base58 } from '@scure/base';
import { type ClientCore, sessionFields } from './client.js';

/** An EIP-1193 provider (`window.ethereum`, WalletConnect, …): only `request` is used. */
export interface Eip1193Provider {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

/**
 * A Solana wallet that signs messages: Phantom-style `signMessage` answering the signature bytes
 * or `{ signature }`. For a Wallet Standard wallet pass its `solana:signMessage` feature wrapped so.
 */
export interface SolanaMessageSigner {
  /** The wallet's address: base58 text, the 32 key bytes, or an object with `toBase58()`. */
  publicKey: string | Uint8Array | { toBase58(): string };
  signMessage(message: Uint8Array): Promise<Uint8Array | { signature: Uint8Array }>;
}

const utf8Hex = (text: string) =>
  `0x${Array.from(new TextEncoder().encode(text), (b) => b.toString(16).padStart(2, '0')).join('')}`;

const solanaAddress = (key: SolanaMessageSigner['publicKey']) =>
  typeof key === 'string' ? key : key instanceof Uint8Array ? base58.encode(key) : key.toBase58();

/** Sign-in with a wallet: the server's challenge message, signed by the wallet, verified. */
export const wallets = (core: ClientCore) => {
  const signIn = async (
    wallet_type: 'ethereum' | 'solana',
    address: string,
    sign: (message: string, publicAddress: string) => Promise<string>,
  ) => {
    const challenge = await core.call('post /v1/auth/wallets/challenge', {
      body: { wallet_type, public_address: address },
    });
    const signature = await sign(challenge.challenge, challenge.public_address);
    return core.session.accept(
      await core.call('post /v1/auth/wallets/verify', {
        body: {
          ...sessionFields(core),
          wallet_type,
          public_address: challenge.public_address,
          nonce: challenge.nonce,
          signature,
        },
      }),
    );
  };
  return {
    ethereum: {
      /** `personal_sign` of the Sign-In with Ethereum message by the provider's first account (or `address`). */
      signIn: async (provider: Eip1193Provider, input: { address?: string } = {}) => {
        const address =
          input.address ?? ((await provider.request({ method: 'eth_requestAccounts' })) as string[])[0];
        if (!address) throw new TypeError('The wallet offered no account.');
        return signIn('ethereum', address, async (message, publicAddress) =>
          String(
            await provider.request({ method: 'personal_sign', params: [utf8Hex(message), publicAddress] }),
          ),
        );
      },
    },
    solana: {
      /** `signMessage` of the Sign In With Solana message; the signature goes as base58. */
      signIn: (wallet: SolanaMessageSigner) =>
        signIn('solana', solanaAddress(wallet.publicKey), async (message) => {
          const signed = await wallet.signMessage(new TextEncoder().encode(message));
          return base58.encode(signed instanceof Uint8Array ? signed : signed.signature);
        }),
    },
  };
};
