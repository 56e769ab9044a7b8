import type { Network } from './types.js';

/**
 * EIP-155 chain ids of the EVM chains Latchkey reads and sends on: an endpoint must report the
 * one of its chain and network, so a Sepolia URL configured as mainnet (or Polygon's as
 * Avalanche's) is refused, not used.
 */
export const EVM_CHAIN_IDS: Record<'ethereum' | 'avalanche' | 'polygon', Record<Network, number>> = {
  ethereum: { mainnet: 1, testnet: 11_155_111 },
  avalanche: { mainnet: 43_114, testnet: 43_113 },
  polygon: { mainnet: 137, testnet: 80_002 },
};
