import { hex } from '@scure/base';
import { eip191Signer, signTyped, Transaction } from 'micro-eth-signer';
import { LatchkeyError } from '../errors.js';
import { isValidEthereumAddress } from './ethereum.js';
import { erc20CallFacts, type TokenFacts } from './evm-token-calls.js';
import { typedDataTokenFacts } from './evm-token-permits.js';
import { rlpItemCount } from './rlp-items.js';

/** What an EVM policy reads from a transaction or typed data, before any key is opened. */
export interface EvmFacts {
  chain_id: bigint;
  to?: string;
  value: bigint;
  selector?: string;
  /** ERC-20 calls and permits: what token rules judge; absent when nothing token-like is signed. */
  tokens?: TokenFacts;
}

/** EIP-191 `personal_sign`: keccak256("\x19Ethereum Signed Message:\n" ‖ length ‖ message), 65-byte r ‖ s ‖ v, `0x`-hex. */
export function signEthereumMessage(message: Uint8Array, privateKey: Uint8Array): string {
  return eip191Signer.sign(message, privateKey);
}

// ---- EIP-712 ----

export interface TypedDataInput {
  domain: Record<string, unknown>;
  types: Record<string, { name: string; type: string }[]>;
  primaryType: string;
  message: Record<string, unknown>;
}

const TYPED_FIELD = 'typed_data';
const invalidTypedData = (message: string, cause?: unknown) =>
  new LatchkeyError('invalid_field', message, { field: TYPED_FIELD, cause });

/** A decimal or `0x`-hex integer as JSON carries it (number or string); undefined when it is not one. */
function integerOf(value: unknown): bigint | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === 'string' && /^(0|[1-9][0-9]{0,77}|0x[0-9a-fA-F]{1,64})$/.test(value))
    return BigInt(value);
  return undefined;
}

/**
 * The policy facts of typed data: the chain from the domain's `chainId`, the recipient its
 * `verifyingContract`. A domain without a chain id is judged as chain 0 (an allow-list of chains
 * refuses it), one without a contract as having no recipient (an allow-list of `to` refuses it).
 */
export function typedDataFacts(typed: TypedDataInput): EvmFacts {
  const { chainId, verifyingContract } = typed.domain;
  let chain_id = 0n;
  if (chainId !== undefined) {
    const parsed = integerOf(chainId);
    if (parsed === undefined) throw invalidTypedData('domain.chainId is not an integer.');
    chain_id = parsed;
  }
  const facts: EvmFacts = { chain_id, value: 0n };
  if (verifyingContract !== undefined) {
    if (typeof verifyingContract !== 'string' || !isValidEthereumAddress(verifyingContract))
      throw invalidTypedData('domain.verifyingContract is not an ethereum address.');
    facts.to = verifyingContract;
  }
  const tokens = typedDataTokenFacts(typed);
  if (tokens) facts.tokens = tokens;
  return facts;
}

/** The domain as the library hashes it: integers as bigint, whatever JSON carried them as. */
function normalisedTyped(typed: TypedDataInput) {
  const { EIP712Domain: _implicit, ...types } = typed.types;
  const domain = { ...typed.domain };
  if (domain.chainId !== undefined) domain.chainId = integerOf(domain.chainId);
  if (!Object.hasOwn(types, typed.primaryType))
    throw invalidTypedData(`primaryType ${typed.primaryType} is not among the types.`);
  return { domain, types, primaryType: typed.primaryType, message: typed.message };
}

/** EIP-712 v4 (`eth_signTypedData_v4`): the signature over the typed data's hash, `0x`-hex, 65 bytes. */
export function signEthereumTypedData(typed: TypedDataInput, privateKey: Uint8Array): string {
  const data = normalisedTyped(typed);
  try {
    // biome-ignore lint/suspicious/noExplicitAny: the schema is the caller's, checked by the library.
    return signTyped(data as any, privateKey);
  } catch (cause) {
    throw invalidTypedData(
      `The typed data does not match its types: ${cause instanceof Error ? cause.message : 'invalid'}`,
      cause,
    );
  }
}

// ---- transactions ----

const TX_FIELD = 'eth_transaction';
const invalidTransaction = (message: string, field = TX_FIELD, cause?: unknown) =>
  new LatchkeyError('invalid_transaction', message, { field, cause });

export type EthTransactionFields = {
  chain_id: string;
  to: string;
  value?: string | undefined;
  data?: string | undefined;
  nonce: string;
  gas_limit: string;
  max_fee_per_gas?: string | undefined;
  max_priority_fee_per_gas?: string | undefined;
  gas_price?: string | undefined;
  type?: 'legacy' | 'eip1559' | undefined;
};

export type EthTransactionInput =
  | EthTransactionFields
  | { serialized: string; chain_id?: string | undefined };

type SignableTx = ReturnType<typeof Transaction.fromBytes>;

/** An unsigned EIP-1559 or legacy EIP-155 transaction, from fields or its unsigned serialization. */
export function parseEthTransaction(input: EthTransactionInput): SignableTx {
  if ('serialized' in input) return parseSerialized(input.serialized, input.chain_id);
  const type = input.type ?? (input.gas_price !== undefined ? 'legacy' : 'eip1559');
  const common = {
    chainId: BigInt(input.chain_id),
    nonce: BigInt(input.nonce),
    gasLimit: BigInt(input.gas_limit),
    to: input.to,
    value: BigInt(input.value ?? '0'),
    data: input.data ?? '0x',
  };
  try {
    if (type === 'legacy') {
      if (input.gas_price === undefined)
        throw invalidTransaction('A legacy transaction needs gas_price.', `${TX_FIELD}.gas_price`);
      if (input.max_fee_per_gas !== undefined || input.max_priority_fee_per_gas !== undefined)
        throw invalidTransaction(
          'A legacy transaction has gas_price, not EIP-1559 fees.',
          `${TX_FIELD}.type`,
        );
      return new Transaction('legacy', { ...common, gasPrice: BigInt(input.gas_price) }, { strict: false });
    }
    if (input.gas_price !== undefined)
      throw invalidTransaction(
        'An EIP-1559 transaction has max fees, not gas_price.',
        `${TX_FIELD}.gas_price`,
      );
    if (input.max_fee_per_gas === undefined)
      throw invalidTransaction(
        'An EIP-1559 transaction needs max_fee_per_gas.',
        `${TX_FIELD}.max_fee_per_gas`,
      );
    const maxFeePerGas = BigInt(input.max_fee_per_gas);
    const maxPriorityFeePerGas = BigInt(input.max_priority_fee_per_gas ?? '0');
    if (maxPriorityFeePerGas > maxFeePerGas)
      throw invalidTransaction(
        'max_priority_fee_per_gas is above max_fee_per_gas.',
        `${TX_FIELD}.max_priority_fee_per_gas`,
      );
    return new Transaction(
      'eip1559',
      { ...common, maxFeePerGas, maxPriorityFeePerGas, accessList: [] },
      { strict: false },
    );
  } catch (cause) {
    if (cause instanceof LatchkeyError) throw cause;
    throw invalidTransaction(`The transaction is not valid: ${messageOf(cause)}`, TX_FIELD, cause);
  }
}

/**
 * The most RLP items an unsigned transaction may hold: its nine fields and an access list of a few
 * hundred addresses and storage keys. micro-eth-signer spends tens of microseconds per item
 * (checksummed addresses, hex), so 6,000 access-list entries in the 300,000-character field cost
 * most of a second; an item is as few as one byte.
 */
export const ETH_TRANSACTION_MAX_RLP_ITEMS = 512;

function parseSerialized(serialized: string, chainId: string | undefined): SignableTx {
  const field = `${TX_FIELD}.serialized`;
  if (!/^0x(?:[0-9a-fA-F]{2})+$/.test(serialized))
    throw invalidTransaction('serialized is 0x-prefixed hex of whole bytes.', field);
  const bytes = hex.decode(serialized.slice(2).toLowerCase());
  // A typed transaction is its type byte, then the RLP list.
  const rlp = bytes[0]! < 0xc0 ? bytes.subarray(1) : bytes;
  if (rlpItemCount(rlp, ETH_TRANSACTION_MAX_RLP_ITEMS) > ETH_TRANSACTION_MAX_RLP_ITEMS)
    throw invalidTransaction(
      `A transaction holds at most ${ETH_TRANSACTION_MAX_RLP_ITEMS} RLP items (fields, access-list addresses and storage keys).`,
      field,
    );
  let tx: SignableTx;
  try {
    tx = Transaction.fromBytes(bytes, false);
  } catch (cause) {
    throw invalidTransaction(
      `This is not a serialized ethereum transaction: ${messageOf(cause)}`,
      field,
      cause,
    );
  }
  if (tx.isSigned) throw invalidTransaction('The transaction is already signed; send it unsigned.', field);
  if (tx.type !== 'legacy' && tx.type !== 'eip1559')
    throw invalidTransaction('Only EIP-1559 and legacy EIP-155 transactions are signed.', field);
  const txChain = (tx.raw as { chainId?: bigint }).chainId;
  // A legacy transaction without a chain id (pre-EIP-155) could be replayed on every chain.
  if (txChain === undefined || txChain === 0n)
    throw invalidTransaction('The transaction has no chain id (EIP-155 is required).', field);
  if (chainId !== undefined && BigInt(chainId) !== txChain)
    throw invalidTransaction(
      `chain_id ${chainId} differs from the transaction's ${txChain}.`,
      `${TX_FIELD}.chain_id`,
    );
  return tx;
}

/** Chain, recipient, value and called method: what EVM policy rules judge. */
export function ethTransactionFacts(tx: SignableTx): EvmFacts {
  const raw = tx.raw as { chainId?: bigint; to: string; value: bigint; data: string };
  const data = raw.data.startsWith('0x') ? raw.data.slice(2) : raw.data;
  const facts: EvmFacts = { chain_id: raw.chainId ?? 0n, value: raw.value };
  if (raw.to && raw.to !== '0x') facts.to = raw.to;
  // Calldata shorter than a selector still calls something (the fallback): judged as that text,
  // which no selector allow-list holds.
  if (data.length > 0) facts.selector = `0x${data.slice(0, 8).toLowerCase()}`;
  const tokens = erc20CallFacts(facts.to, data);
  if (tokens) facts.tokens = tokens;
  return facts;
}

/** Signs with the wallet's key: the raw signed transaction and its hash, both `0x`-hex. */
export function signEthTransaction(
  tx: SignableTx,
  privateKey: Uint8Array,
): { signedTransaction: string; transactionHash: string } {
  const signed = tx.signBy(privateKey);
  return { signedTransaction: signed.toHex(), transactionHash: signed.hash };
}

const messageOf = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause));
