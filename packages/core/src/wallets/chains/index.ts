import { bitcoin } from './bitcoin.js';
import { ethereum } from './ethereum.js';
import { polkadot } from './polkadot.js';
import { solana } from './solana.js';
import { stellar } from './stellar.js';
import type { ChainModule, WalletType } from './types.js';

/** The chain module for each wallet type the interface accepts. */
export const chainModules: Readonly<Record<WalletType, ChainModule>> = {
  ethereum,
  solana,
  bitcoin,
  DOT: polkadot,
  XLM: stellar,
};

export { bitcoin } from './bitcoin.js';
export { type ParsedPsbt, parsePsbt, signBitcoinMessage, signPsbt } from './bitcoin-sign.js';
export { wipe } from './bytes.js';
export { ed25519Sign, ed25519SigningKey } from './ed25519-sign.js';
export { ethereum, ethereumAddressesEqual, isValidEthereumAddress, toChecksumAddress } from './ethereum.js';
export {
  type EthTransactionInput,
  type EvmFacts,
  ethTransactionFacts,
  parseEthTransaction,
  signEthereumMessage,
  signEthereumTypedData,
  signEthTransaction,
  type TypedDataInput,
  typedDataFacts,
} from './ethereum-sign.js';
export {
  bip39Seed,
  bip39SeedAsync,
  entropyFromMnemonic,
  mnemonicFromEntropy,
  newMnemonic,
  normalizeMnemonic,
} from './mnemonic.js';
export { polkadot, polkadotMiniSecret, polkadotMiniSecretAsync, ss58Decode, ss58Encode } from './polkadot.js';
export { polkadotWrapBytes, signPolkadotMessage } from './polkadot-sign.js';
export { slip10Ed25519 } from './slip10.js';
export { solana } from './solana.js';
export { type SolanaTransactionFacts, solanaTransactionFacts } from './solana-facts.js';
export { parseSolanaMessage } from './solana-message.js';
export { type SignedSolanaTransaction, signSolanaMessage, signSolanaTransaction } from './solana-sign.js';
export { stellar, strKeyDecode, strKeyEncode, strKeyVersion } from './stellar.js';
export {
  parseStellarEnvelope,
  STELLAR_PASSPHRASES,
  type StellarEnvelope,
  signStellarEnvelope,
  signStellarMessage,
  stellarTransactionHash,
} from './stellar-sign.js';
export type { ChainModule, ChainOptions, DerivedKey, Network, WalletType } from './types.js';
