import { base64, hex } from '@scure/base';
import { utf8 } from '../crypto/encoding.js';
import { LatchkeyError } from '../errors.js';
import { bitcoinSigning } from './plans/bitcoin.js';
import { ethereumSigning } from './plans/ethereum.js';
import {
  type ChainSigning,
  digest,
  mismatch,
  type SignedTransactionParts,
  type SigningPlan,
} from './plans/plan.js';
import { polkadotSigning } from './plans/polkadot.js';
import { solanaSigning } from './plans/solana.js';
import { stellarSigning } from './plans/stellar.js';
import type { WalletRecord, WalletType } from './repo.js';
import {
  type SignMessageRequest,
  type SignTransactionRequest,
  type SignTypedDataRequest,
  signTransactionRequestSchema,
} from './schema.js';

export type { SignedTransactionParts, SigningPlan } from './plans/plan.js';

/**
 * How each wallet type signs, one module per chain under plans/: a chain's signing is added
 * there and named here, and nowhere else decides by chain.
 */
const CHAINS: Readonly<Record<WalletType, ChainSigning>> = {
  ethereum: ethereumSigning,
  solana: solanaSigning,
  bitcoin: bitcoinSigning,
  DOT: polkadotSigning,
  XLM: stellarSigning,
};

/** The message's bytes in its declared encoding; a clear 400 when they are not that. */
export function decodeMessage(message: string, encoding: SignMessageRequest['encoding']): Uint8Array {
  const invalid = () =>
    new LatchkeyError('invalid_field', `The message is not valid ${encoding}.`, { field: 'message' });
  if (encoding === 'utf8') return utf8(message);
  try {
    if (encoding === 'hex') {
      const body = /^0x/i.test(message) ? message.slice(2) : message;
      if (body.length === 0) throw invalid();
      return hex.decode(body.toLowerCase());
    }
    const bytes = base64.decode(message);
    if (bytes.length === 0) throw invalid();
    return bytes;
  } catch {
    throw invalid();
  }
}

export async function planMessage(
  wallet: WalletRecord,
  input: SignMessageRequest,
): Promise<SigningPlan<{ signature: string; encoding: 'hex' | 'base58' | 'base64' }>> {
  const chain = CHAINS[wallet.wallet_type];
  const bytes = decodeMessage(input.message, input.encoding);
  const sign = await chain.message(wallet, bytes);
  const encoding = chain.signatureEncoding;
  return {
    method: 'sign_message',
    payload_digest: digest(bytes),
    facts: {},
    sign: async (secret) => ({ signature: await sign(secret), encoding }),
  };
}

export async function planTypedData(
  wallet: WalletRecord,
  input: SignTypedDataRequest,
): Promise<SigningPlan<string>> {
  const typedData = CHAINS[wallet.wallet_type].typedData;
  if (!typedData) throw mismatch('Only ethereum wallets sign EIP-712 typed data.', 'wallet_id');
  return typedData(wallet, input);
}

// ---- transactions ----

/** The request's transaction fields, in the schema's order (one per chain that signs them). */
const TRANSACTION_FIELDS = Object.keys(
  signTransactionRequestSchema.shape,
) as (keyof SignTransactionRequest)[];
const EXACTLY_ONE = `Send exactly one of ${TRANSACTION_FIELDS.slice(0, -1).join(', ')} and ${TRANSACTION_FIELDS.at(-1)}.`;

export async function planTransaction(
  wallet: WalletRecord,
  input: SignTransactionRequest,
): Promise<SigningPlan<SignedTransactionParts>> {
  const given = (Object.keys(input) as (keyof SignTransactionRequest)[]).filter(
    (k) => input[k] !== undefined,
  );
  if (given.length !== 1)
    throw new LatchkeyError('missing_field', EXACTLY_ONE, { field: given[1] ?? TRANSACTION_FIELDS[0]! });
  const kind = given[0]!;
  const planner = CHAINS[wallet.wallet_type].transaction;
  if (!planner)
    throw mismatch(`${wallet.wallet_type} wallets sign messages only, not transactions.`, 'wallet_id');
  if (planner.field !== kind)
    throw mismatch(`A ${wallet.wallet_type} wallet signs ${planner.field}, not ${kind}.`, kind);
  return planner.plan(wallet, input);
}
