import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { base64, hex } from '@scure/base';
import { bytesEqual } from '../chains/bytes.js';
import { strKeyDecode, strKeyVersion } from '../chains/index.js';
import { utf8 } from '../crypto/encoding.js';
import { LatchkeyError } from '../errors.js';
import type { SigningRequest } from '../shared/signing-request.js';
import type { WalletRecord, WalletType } from './repo.js';
import type { SignMessageRequest, SignTransactionRequest, SignTypedDataRequest } from './schema.js';
import { decodeTransaction, encodeTransaction } from './transaction-encoding.js';

/** The payload readers and signers, loaded on the first signature: their libraries weigh more than the rest. */
let signing: Promise<typeof import('../chains/signing.js')> | undefined;
const loadSigning = () => (signing ??= import('../chains/signing.js'));

/**
 * A signing request read and checked without any key: the facts the policies judge, the
 * payload's digest for the audit trail, and how to sign once the gate allows it.
 */
export interface SigningPlan<R> {
  method: SigningRequest['method'];
  payload_digest: string;
  facts: Pick<SigningRequest, 'evm' | 'solana' | 'bitcoin'>;
  /** Signs with the wallet's raw secret (`ChainModule.decodeSecret`'s form). */
  sign(secret: Uint8Array): Promise<R>;
}

const digest = (bytes: Uint8Array) => bytesToHex(sha256(bytes));

const mismatch = (message: string, field: string) =>
  new LatchkeyError('wallet_type_mismatch', message, { field });

// ---- messages ----

const SIGNATURE_ENCODING = {
  ethereum: 'hex',
  solana: 'base58',
  bitcoin: 'base64',
  DOT: 'hex',
  XLM: 'base64',
} as const satisfies Record<WalletType, 'hex' | 'base58' | 'base64'>;

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

/** An ed25519 key of the wallet: refused as our bug if the vault gave another wallet's key. */
async function ed25519WalletKey(seed: Uint8Array, publicKey: Uint8Array | undefined) {
  const key = await (await loadSigning()).ed25519SigningKey(seed);
  if (!publicKey || !bytesEqual(key.publicKey, publicKey))
    throw new LatchkeyError('internal_error', "The secret key is not the wallet's key.");
  return key;
}

export async function planMessage(
  wallet: WalletRecord,
  input: SignMessageRequest,
): Promise<SigningPlan<{ signature: string; encoding: 'hex' | 'base58' | 'base64' }>> {
  const {
    signBitcoinMessage,
    signEthereumMessage,
    signPolkadotMessage,
    signSolanaMessage,
    signStellarMessage,
    startsWithSolanaMessage,
    transactionAsMessage,
  } = await loadSigning();
  const bytes = decodeMessage(input.message, input.encoding);
  // Refused before the policy gate and the key, as the signer would refuse it after them.
  if (wallet.wallet_type === 'solana' && startsWithSolanaMessage(bytes)) throw transactionAsMessage();
  const encoding = SIGNATURE_ENCODING[wallet.wallet_type];
  const signers: Record<WalletType, (secret: Uint8Array) => Promise<string>> = {
    ethereum: async (secret) => signEthereumMessage(bytes, secret),
    solana: async (secret) => (await signSolanaMessage(bytes, secret, wallet.public_address)).signature,
    bitcoin: async (secret) => signBitcoinMessage(bytes, secret),
    DOT: async (secret) => signPolkadotMessage(bytes, secret),
    XLM: async (secret) => {
      await ed25519WalletKey(secret, strKeyDecode(strKeyVersion.publicKey, wallet.public_address));
      return signStellarMessage(bytes, secret);
    },
  };
  return {
    method: 'sign_message',
    payload_digest: digest(bytes),
    facts: {},
    sign: async (secret) => ({ signature: await signers[wallet.wallet_type](secret), encoding }),
  };
}

export async function planTypedData(
  wallet: WalletRecord,
  input: SignTypedDataRequest,
): Promise<SigningPlan<string>> {
  const { boundTypedData, signEthereumTypedData, typedDataFacts } = await loadSigning();
  if (wallet.wallet_type !== 'ethereum')
    throw mismatch('Only ethereum wallets sign EIP-712 typed data.', 'wallet_id');
  // The typed data as received, re-serialized: JSON has no byte form of its own.
  const json = JSON.stringify(input.typed_data);
  // Bounded before anything else reads it: the signing library's work grows faster than the bytes.
  const typed = { ...input.typed_data, types: boundTypedData(input.typed_data, json) };
  const evm = typedDataFacts(typed);
  return {
    method: 'sign_typed_data',
    payload_digest: digest(utf8(json)),
    facts: { evm },
    sign: async (secret) => signEthereumTypedData(typed, secret),
  };
}

// ---- transactions ----

export interface SignedTransactionParts {
  signature?: string;
  signed_transaction: string;
  transaction_hash?: string;
}

/** The transaction kind each wallet type signs; DOT wallets sign messages only. */
const KIND_OF: Partial<Record<WalletType, keyof SignTransactionRequest>> = {
  solana: 'sol_transaction',
  ethereum: 'eth_transaction',
  bitcoin: 'btc_psbt',
  XLM: 'xlm_transaction',
};

export async function planTransaction(
  wallet: WalletRecord,
  input: SignTransactionRequest,
): Promise<SigningPlan<SignedTransactionParts>> {
  const given = (Object.keys(input) as (keyof SignTransactionRequest)[]).filter(
    (k) => input[k] !== undefined,
  );
  if (given.length !== 1) {
    throw new LatchkeyError(
      'missing_field',
      'Send exactly one of sol_transaction, eth_transaction, btc_psbt and xlm_transaction.',
      { field: given[1] ?? 'sol_transaction' },
    );
  }
  const kind = given[0]!;
  const expected = KIND_OF[wallet.wallet_type];
  if (!expected) throw mismatch('DOT wallets sign messages only, not transactions.', 'wallet_id');
  if (expected !== kind)
    throw mismatch(`A ${wallet.wallet_type} wallet signs ${expected}, not ${kind}.`, kind);
  const {
    ethTransactionFacts,
    parseEthTransaction,
    parsePsbt,
    parseStellarEnvelope,
    STELLAR_PASSPHRASES,
    signEthTransaction,
    signPsbt,
    signSolanaTransaction,
    signStellarEnvelope,
    solanaTransactionFacts,
  } = await loadSigning();

  if (input.sol_transaction) {
    const { transaction, encoding } = input.sol_transaction;
    const bytes = decodeTransaction(transaction, encoding);
    const { walletSigns, ...solana } = solanaTransactionFacts(bytes, wallet.public_address);
    if (!walletSigns)
      throw new LatchkeyError('wallet_not_a_signer', undefined, { field: 'sol_transaction.transaction' });
    return {
      method: 'sign_transaction',
      payload_digest: digest(bytes),
      facts: { solana },
      sign: async (secret) => {
        const signed = await signSolanaTransaction(bytes, secret, wallet.public_address);
        return {
          signature: signed.signature,
          signed_transaction: encodeTransaction(signed.signedTransaction, encoding),
        };
      },
    };
  }

  if (input.eth_transaction) {
    const eth = input.eth_transaction;
    const tx = parseEthTransaction(
      'serialized' in eth
        ? eth
        : { ...eth, type: eth.type === 0 ? 'legacy' : eth.type === 2 ? 'eip1559' : eth.type },
    );
    return {
      method: 'sign_transaction',
      payload_digest: digest(tx.toBytes({ includeSignature: false })),
      facts: { evm: ethTransactionFacts(tx) },
      sign: async (secret) => {
        const signed = signEthTransaction(tx, secret);
        return { signed_transaction: signed.signedTransaction, transaction_hash: signed.transactionHash };
      },
    };
  }

  if (input.btc_psbt) {
    const parsed = parsePsbt(input.btc_psbt.psbt, wallet.public_address, wallet.network);
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
      payload_digest: digest(base64.decode(input.btc_psbt.psbt)),
      facts: { bitcoin: { outputs: parsed.outputs } },
      sign: async (secret) => ({ signed_transaction: signPsbt(parsed, secret) }),
    };
  }

  const xlm = input.xlm_transaction!;
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
}
