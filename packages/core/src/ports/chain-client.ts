/** Reads balances from a chain over its real wire protocol. */
export interface ChainClient {
  /**
   * The balance of `address` in the token's smallest unit. `token` is `native` or a contract or
   * mint address. An account the chain has never seen has balance 0n, not an error.
   */
  getBalance(query: {
    network: string;
    address: string;
    token: 'native' | { contract: string };
  }): Promise<bigint>;
}
