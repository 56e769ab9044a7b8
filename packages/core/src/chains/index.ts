import { bitcoin } from './bitcoin.js';
import { ethereum } from './ethereum.js';
import { polkadot } from './polkadot.js';
import { solana } from './solana.js';
import { stellar } from './stellar.js';
import type { ChainModule, WalletType } from './types.js';

/**
 * The chain modules: keys, addresses and their encodings, what creating or importing a wallet
 * needs. Reading and signing payloads is in ./signing.js, kept apart so that it can load on the
 * first signature (its libraries, micro-eth-signer and @scure/btc-signer, weigh more).
 */

/** The chain module for each wallet type the interface accepts. */
export const chainModules: Readonly<Record<WalletType, ChainModule>> = {
  ethereum,
  solana,
  bitcoin,
  DOT: polkadot,
  XLM: stellar,
};

export { bitcoin } from './bitcoin.js';
export { wipe } from './bytes.js';
export { ethereum, ethereumAddressesEqual, isValidEthereumAddress, toChecksumAddress } from './ethereum.js';
export {
  bip39Seed,
  bip39SeedAsync,
  entropyFromMnemonic,
  mnemonicFromEntropy,
  newMnemonic,
  normalizeMnemonic,
} from './mnemonic.js';
export { polkadot, polkadotMiniSecret, polkadotMiniSecretAsync, ss58Decode, ss58Encode } from './polkadot.js';
export { slip10Ed25519 } from './slip10.js';
export { solana } from './solana.js';
export { stellar, strKeyDecode, strKeyEncode, strKeyVersion } from './stellar.js';
export type { ChainModule, ChainOptions, DerivedKey, Network, WalletType } from './types.js';
