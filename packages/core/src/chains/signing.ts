/** Reading and signing each chain's payloads: messages, transactions, typed data, PSBTs. */
export { type ParsedPsbt, parsePsbt, signBitcoinMessage, signPsbt } from './bitcoin-sign.js';
export { ed25519Sign, ed25519SigningKey } from './ed25519-sign.js';
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
export { polkadotWrapBytes, signPolkadotMessage } from './polkadot-sign.js';
export { type SolanaTransactionFacts, solanaTransactionFacts } from './solana-facts.js';
export { parseSolanaMessage, startsWithSolanaMessage } from './solana-message.js';
export {
  type SignedSolanaTransaction,
  signSolanaMessage,
  signSolanaTransaction,
  transactionAsMessage,
} from './solana-sign.js';
export {
  parseStellarEnvelope,
  STELLAR_PASSPHRASES,
  type StellarEnvelope,
  signStellarEnvelope,
  signStellarMessage,
  stellarTransactionHash,
} from './stellar-sign.js';
export { boundTypedData, TYPED_DATA_LIMITS } from './typed-data-bounds.js';
