/**
 * A transaction left `preparing` (never signed) or `signed` (never acknowledged by the node) this
 * long is taken to belong to a process that died. EVM: the next send of the wallet on that chain
 * gives the nonce back, or broadcasts the stored transaction again. Solana: a retry by its
 * idempotency key abandons the one never signed, and broadcasts the signed one again.
 */
export const STALE_SECONDS = 60;

/**
 * How long one process trusts a (wallet, chain) nonce sequence after a send through it went
 * through cleanly: within it, a send neither reads the node's pending count nor looks for what a
 * dead process left unsent. The sequence in storage is exact for Latchkey's own sends in every
 * process; the count only catches sends made with the key elsewhere, and a dead process's rows
 * wait `STALE_SECONDS` anyway: this much later at most, they are found by the next send.
 */
export const TRUSTED_SEQUENCE_SECONDS = 5;
