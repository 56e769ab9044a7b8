import type { ResolvedOptions } from '../capability.js';
import { LatchkeyError } from '../errors.js';
import { type EvmNode, jsonRpcNode } from './evm-node.js';

type ChainsConfig = ResolvedOptions['chains'];

/**
 * The CAIP-2 id of each network's Solana cluster (its genesis hash, cut to 32 characters): the
 * `chain_id` of a Solana transaction's row.
 */
export const SOLANA_CHAIN_IDS = {
  mainnet: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
  testnet: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
} as const;

export const isSolanaChain = (chainId: string) => chainId.startsWith('solana:');

/** The network a Solana `chain_id` names. */
export const solanaNetworkOf = (chainId: string): 'mainnet' | 'testnet' =>
  chainId === SOLANA_CHAIN_IDS.mainnet ? 'mainnet' : 'testnet';

/**
 * The node a Solana send goes to: the endpoint the balances read (`chains.solana.<network>`). A
 * host's own ChainClient reads balances only: it cannot send.
 */
export function solanaNodeFor(config: ChainsConfig, network: 'mainnet' | 'testnet'): EvmNode {
  const endpoint = config.solana?.[network];
  const name = network === 'mainnet' ? 'mainnet' : 'devnet';
  if (endpoint === undefined || (typeof endpoint === 'object' && 'getBalance' in endpoint))
    throw new LatchkeyError(
      'chain_not_configured',
      `No RPC endpoint is configured for solana ${name}: set chains.solana.${network} to a URL.`,
    );
  const settings = typeof endpoint === 'string' ? { url: endpoint } : endpoint;
  return jsonRpcNode({
    url: settings.url,
    label: `solana ${name}`,
    timeoutMs: settings.timeoutMs ?? config.timeoutMs,
    retries: settings.retries ?? config.retries,
    headers: settings.headers ?? {},
    fetch: config.fetch ?? ((input, init) => fetch(input, init)),
  });
}
