import { z } from 'zod';
import type { ChainClient } from '../ports/chain-client.js';
import { CHAINS, type Chain } from './tokens.js';

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

const chainClient = z.custom<ChainClient>(
  (v) => typeof v === 'object' && v !== null && typeof (v as ChainClient).getBalance === 'function',
  'must be a URL, an endpoint object or a ChainClient (an object with getBalance)',
);

/** One network's endpoint: a URL, a URL with its own settings, or a ChainClient of the host's. */
const endpointSchema = z.union([
  httpUrl,
  z.strictObject({
    url: httpUrl,
    /** Overrides `chains.timeoutMs` for this endpoint. */
    timeoutMs: z.int().min(1).max(120_000).optional(),
    /** Overrides `chains.retries` for this endpoint. */
    retries: z.int().min(0).max(5).optional(),
    /** Sent with every request, e.g. a provider's API key header. */
    headers: z.record(z.string(), z.string()).optional(),
    /**
     * EVM only: the chain id the endpoint must report, when it is not the chain's real one
     * (a local development node).
     */
    chainId: z.int().min(1).optional(),
  }),
  chainClient,
]);

export type ChainEndpoint = z.input<typeof endpointSchema>;

const networkEndpoints = z.strictObject({
  mainnet: endpointSchema.optional(),
  testnet: endpointSchema.optional(),
});

/**
 * `chains` in the options: RPC endpoints per chain and network (docs/balances.md). A chain with
 * no endpoint for a wallet's network answers its balance reads with `chain_not_configured`.
 */
export const chainsOptionsSchema = z
  .strictObject({
    ...(Object.fromEntries(CHAINS.map((c) => [c, networkEndpoints.optional()])) as Record<
      Chain,
      z.ZodOptional<typeof networkEndpoints>
    >),
    /** Per attempt, milliseconds, including reading the answer. */
    timeoutMs: z.int().min(1).max(120_000).default(5_000),
    /** Further attempts after a network error, a timeout or an HTTP 429/5xx. */
    retries: z.int().min(0).max(5).default(2),
    /** How long a balance read is reused for the same address and token; 0 turns it off. */
    cacheSeconds: z.number().min(0).max(3_600).default(10),
    /** The fetch to use (defaults to the global one). */
    fetch: z.custom<typeof fetch>((v) => typeof v === 'function', 'fetch must be a function').optional(),
  })
  .prefault({});

export type ChainsOptions = z.input<typeof chainsOptionsSchema>;
export type ChainsConfig = z.output<typeof chainsOptionsSchema>;
