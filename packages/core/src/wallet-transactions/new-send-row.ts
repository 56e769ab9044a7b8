import type { WalletTransactionRecord } from './repo.js';

/** What a new send says; every other field of its row starts empty. */
export interface NewSend {
  id: string;
  app_id: string;
  wallet_id: string;
  chain_id: string;
  to: string | null;
  value: string;
  idempotency_key: string | null;
  /** Seconds, as every record's clock. */
  now: number;
  /** EVM only: Solana sends leave these null. */
  data?: string | null | undefined;
  gas_limit?: string | null | undefined;
  max_fee_per_gas?: string | null | undefined;
  max_priority_fee_per_gas?: string | null | undefined;
}

/**
 * The row a send is stored as before it is signed (`preparing`, no nonce yet, nothing known of
 * the chain's answer): one place, so both chains' sends and the recovery tests start from the same
 * shape. The nonce is the storage's to take (`insertWithNextNonce`) or null (Solana).
 */
export function newSendRow(send: NewSend): WalletTransactionRecord {
  return {
    id: send.id,
    app_id: send.app_id,
    wallet_id: send.wallet_id,
    chain_id: send.chain_id,
    nonce: null,
    kind: 'send',
    status: 'preparing',
    to: send.to,
    value: send.value,
    data: send.data ?? null,
    gas_limit: send.gas_limit ?? null,
    max_fee_per_gas: send.max_fee_per_gas ?? null,
    max_priority_fee_per_gas: send.max_priority_fee_per_gas ?? null,
    transaction_hash: null,
    raw_transaction: null,
    replaces: null,
    replaced_by: null,
    idempotency_key: send.idempotency_key,
    block_number: null,
    gas_used: null,
    effective_gas_price: null,
    fee: null,
    error: null,
    created_at: send.now,
    updated_at: send.now,
  };
}
