import type { Network } from '../chains/types.js';
import { LatchkeyError } from '../errors.js';
import type { ChainClient } from '../ports/chain-client.js';
import type { Clock } from '../ports/clock.js';
import { cachedClient } from './cache.js';
import { evmClient, horizonClient, solanaClient, substrateClient } from './clients/index.js';
import type { Endpoint } from './clients/transport.js';
import type { ChainEndpoint, ChainsConfig } from './config.js';
import { CHAIN_PROTOCOL, type Chain, EVM_CHAIN_IDS, TEST_NETWORK_NAME } from './tokens.js';

/** The client of a chain on a network; throws `chain_not_configured` when it has no endpoint. */
export type ChainClients = (chain: Chain, network: Network) => ChainClient;

/** Builds each configured client once, on first use, behind the short balance cache. */
export function chainClients(config: ChainsConfig, clock: Clock): ChainClients {
  const built = new Map<string, ChainClient>();
  return (chain, network) => {
    const key = `${chain}/${network}`;
    let client = built.get(key);
    if (!client) {
      const endpoint = config[chain]?.[network];
      if (endpoint === undefined) {
        const name = network === 'mainnet' ? 'mainnet' : `testnet (${TEST_NETWORK_NAME[chain]})`;
        throw new LatchkeyError(
          'chain_not_configured',
          `No RPC endpoint is configured for ${chain} ${name}: set chains.${chain}.${network}.`,
        );
      }
      client = cachedClient(buildClient(chain, network, endpoint, config), {
        ttlSeconds: config.cacheSeconds,
        clock,
      });
      built.set(key, client);
    }
    return client;
  };
}

function buildClient(
  chain: Chain,
  network: Network,
  endpoint: ChainEndpoint,
  config: ChainsConfig,
): ChainClient {
  if (typeof endpoint === 'object' && 'getBalance' in endpoint) return endpoint;
  const settings: Exclude<ChainEndpoint, string | ChainClient> =
    typeof endpoint === 'string' ? { url: endpoint } : endpoint;
  const ep: Endpoint = {
    url: settings.url,
    label: `${chain} ${network}`,
    timeoutMs: settings.timeoutMs ?? config.timeoutMs,
    retries: settings.retries ?? config.retries,
    headers: settings.headers ?? {},
    fetch: config.fetch ?? ((input, init) => fetch(input, init)),
  };
  switch (CHAIN_PROTOCOL[chain]) {
    case 'evm':
      return evmClient(ep, settings.chainId ?? EVM_CHAIN_IDS[chain as keyof typeof EVM_CHAIN_IDS][network]);
    case 'solana':
      return solanaClient(ep);
    case 'substrate':
      return substrateClient(ep);
    case 'horizon':
      return horizonClient(ep);
  }
}
