/**
 * A transaction left `preparing` (never signed) or `signed` (never acknowledged by the node) this
 * long is taken to belong to a process that died. EVM: the next send of the wallet on that chain
 * gives the nonce back, or broadcasts the stored transaction again. Solana: a retry by its
 * idempotency key abandons the one never signed, and broadcasts the signed one again.
 */
export const STALE_SECONDS = 60;
