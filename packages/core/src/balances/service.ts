import { LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import { walletView } from '../wallets/service.js';
import type { ChainClients } from './chain-clients.js';
import { formatUnits } from './decimal.js';
import type { WalletBalanceRequest, WalletBalanceResponse } from './schema.js';
import { resolveToken, TEST_NETWORK_NAME } from './tokens.js';

export type BalanceService = ReturnType<typeof balanceService>;

export function balanceService(k: Kernel, clients: ChainClients) {
  return {
    /** A wallet's balance of a token, read from the chain of the wallet's network. */
    async get(appId: string, input: WalletBalanceRequest): Promise<WalletBalanceResponse> {
      const wallet = await k.storage.wallets.get(appId, input.wallet_id);
      if (!wallet) throw new LatchkeyError('wallet_not_found');
      const token = resolveToken(input.token_symbol, wallet.wallet_type, wallet.network);
      if ('refused' in token) {
        if (token.refused === 'wallet_type') {
          throw new LatchkeyError(
            'token_wallet_type_mismatch',
            `${input.token_symbol} does not suit a ${wallet.wallet_type} wallet; it suits ${token.suits.join(' and ')} wallets.`,
            { field: 'token_symbol' },
          );
        }
        throw new LatchkeyError(
          'token_not_on_network',
          `${input.token_symbol} has no known address on ${wallet.network === 'mainnet' ? `${token.chain} mainnet` : TEST_NETWORK_NAME[token.chain]}, this wallet's network.`,
          { field: 'token_symbol' },
        );
      }
      const client = clients(token.chain, token.network);
      let atomic: bigint;
      try {
        atomic = await client.getBalance({
          address: wallet.public_address,
          asset: token.asset,
          decimals: token.decimals,
        });
      } catch (err) {
        // A host's own ChainClient may throw anything; an upstream failure is still a 502.
        if (err instanceof LatchkeyError) throw err;
        throw new LatchkeyError('chain_unavailable', `The ${token.chain} client failed.`, { cause: err });
      }
      if (typeof atomic !== 'bigint' || atomic < 0n)
        throw new LatchkeyError('chain_invalid_response', `The ${token.chain} client returned no balance.`);
      return {
        balance: formatUnits(atomic, token.decimals),
        token_symbol: input.token_symbol,
        wallet: walletView(wallet),
      };
    },
  };
}
