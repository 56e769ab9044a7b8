import type { Network } from '../chains/types.js';
import type { WalletType } from '../wallets/repo.js';

/** The chains balances are read from, each with its own RPC endpoints. */
export const CHAINS = ['ethereum', 'avalanche', 'polygon', 'solana', 'polkadot', 'stellar'] as const;
export type Chain = (typeof CHAINS)[number];

/** The wire protocol each chain is read over. */
export const CHAIN_PROTOCOL = {
  ethereum: 'evm',
  avalanche: 'evm',
  polygon: 'evm',
  solana: 'solana',
  polkadot: 'substrate',
  stellar: 'horizon',
} as const satisfies Record<Chain, 'evm' | 'solana' | 'substrate' | 'horizon'>;

/** The network a `testnet` wallet reads from, per chain. */
export const TEST_NETWORK_NAME: Record<Chain, string> = {
  ethereum: 'Sepolia',
  avalanche: 'Fuji (C-Chain)',
  polygon: 'Amoy',
  solana: 'devnet',
  polkadot: 'Paseo (Asset Hub)',
  stellar: 'testnet',
};

export { EVM_CHAIN_IDS } from '../chains/evm-networks.js';

/** The `token_symbol` values of the interface. */
export const TOKEN_SYMBOLS = [
  'ethereum',
  'solana',
  'AVAX',
  'MATIC',
  'USDC',
  'USDT',
  'LINK',
  'DOT',
  'XLM',
] as const;
export type TokenSymbol = (typeof TOKEN_SYMBOLS)[number];

/** Where a token lives for one wallet type; `null` on a network where it has no address. */
export interface TokenListing {
  chain: Chain;
  decimals: number;
  mainnet: 'native' | { contract: string } | null;
  testnet: 'native' | { contract: string } | null;
}

const native = (chain: Chain, decimals: number): TokenListing => ({
  chain,
  decimals,
  mainnet: 'native',
  testnet: 'native',
});

/**
 * The token table (docs/balances.md): per symbol, the wallet types it suits and where it lives.
 * Contract and mint addresses are the issuers' own deployments (Circle, Tether, Chainlink).
 */
export const TOKENS: Readonly<Record<TokenSymbol, Partial<Record<WalletType, TokenListing>>>> = {
  ethereum: { ethereum: native('ethereum', 18) },
  // The same address on the other EVM chains: their native coins.
  AVAX: { ethereum: native('avalanche', 18) },
  // Polygon PoS's native coin (renamed POL in 2024; the interface keeps the symbol MATIC).
  MATIC: { ethereum: native('polygon', 18) },
  USDC: {
    ethereum: {
      chain: 'ethereum',
      decimals: 6,
      mainnet: { contract: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48' },
      testnet: { contract: '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238' },
    },
    solana: {
      chain: 'solana',
      decimals: 6,
      mainnet: { contract: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' },
      testnet: { contract: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU' },
    },
  },
  // Tether has no deployment on Sepolia or Solana devnet.
  USDT: {
    ethereum: {
      chain: 'ethereum',
      decimals: 6,
      mainnet: { contract: '0xdAC17F958D2ee523a2206206994597C13D831ec7' },
      testnet: null,
    },
    solana: {
      chain: 'solana',
      decimals: 6,
      mainnet: { contract: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB' },
      testnet: null,
    },
  },
  LINK: {
    ethereum: {
      chain: 'ethereum',
      decimals: 18,
      mainnet: { contract: '0x514910771AF9Ca656af840dff83E8264EcF986CA' },
      testnet: { contract: '0x779877A7B0D9E8603169DdbD7836e478b4624789' },
    },
  },
  solana: { solana: native('solana', 9) },
  // Paseo's PAS has DOT's 10 decimals (Westend's WND has 12, so it is not the test network here).
  DOT: { DOT: native('polkadot', 10) },
  XLM: { XLM: native('stellar', 7) },
};

/** A token resolved for one wallet: the chain, network, asset and decimals to read. */
export interface ResolvedToken {
  chain: Chain;
  network: Network;
  asset: 'native' | { contract: string };
  decimals: number;
}

/**
 * Where `symbol` lives for a wallet of `walletType` on `network`, or why it cannot be read:
 * `wallet_type` (the token does not suit the wallet) or `network` (no address there).
 */
export function resolveToken(
  symbol: TokenSymbol,
  walletType: WalletType,
  network: Network,
): ResolvedToken | { refused: 'wallet_type'; suits: WalletType[] } | { refused: 'network'; chain: Chain } {
  const listings = TOKENS[symbol];
  const listing = listings[walletType];
  if (!listing) return { refused: 'wallet_type', suits: Object.keys(listings) as WalletType[] };
  const asset = listing[network];
  if (!asset) return { refused: 'network', chain: listing.chain };
  return { chain: listing.chain, network, asset, decimals: listing.decimals };
}
