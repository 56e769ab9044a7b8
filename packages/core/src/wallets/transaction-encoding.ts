// The encoding lives in chains/ (wallet-transactions/ sends Solana transactions too); kept here
// so this folder's imports stay as they are.
export {
  decodeTransaction,
  encodeTransaction,
  SOLANA_MAX_TRANSACTION_BYTES,
} from '../chains/solana-encoding.js';
