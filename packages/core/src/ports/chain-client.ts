/** What a balance read asks one chain, on one network. */
export interface BalanceQuery {
  /** The account, in the chain's own address format (as the wallet stores it). */
  address: string;
  /** `native`, or the token's contract (ERC-20) or mint (SPL) address. */
  asset: 'native' | { contract: string };
  /** The token's decimals, for clients that can check them against what the chain reports. */
  decimals: number;
}

/**
 * Reads balances from one chain on one network over its real wire protocol. Latchkey builds one
 * per configured endpoint (see `chains` in the options); a host app may pass its own instead.
 */
export interface ChainClient {
  /**
   * The balance in the asset's smallest unit (wei, lamports, planck, stroops or the token's
   * atomic unit). An account the chain has never seen has balance 0n, not an error. Any other
   * failure throws a LatchkeyError (`chain_timeout`, `chain_unavailable`,
   * `chain_invalid_response`): never a guessed number.
   */
  getBalance(query: BalanceQuery): Promise<bigint>;
}
