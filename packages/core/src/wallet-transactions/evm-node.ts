import type { ResolvedOptions } from '../capability.js';
import { EVM_CHAIN_IDS } from '../chains/evm-networks.js';
import { LatchkeyError } from '../errors.js';

type ChainsConfig = ResolvedOptions['chains'];

/** A JSON-RPC error the node answered with: its words are what tells "insufficient funds" apart. */
export interface NodeRefusal {
  code: number;
  message: string;
}

/** Answers with `result`, or the node's refusal; throws chain errors for transport faults. */
export type EvmCall = (
  method: string,
  params: unknown[],
  opts?: { retries?: number },
) => Promise<{ result: unknown } | { refusal: NodeRefusal }>;

/** The node of one EVM chain, and the label its errors carry (never the URL: it may hold a key). */
export interface EvmNode {
  label: string;
  call: EvmCall;
}

const TRANSIENT = new Set([408, 425, 429, 500, 502, 503, 504]);
const MAX_ANSWER_CHARS = 1024 * 1024;

/**
 * The node a send on `chainId` goes to: the configured EVM endpoint (`chains.<chain>.<network>`)
 * whose chain id, its real one or the `chainId` declared for a development node, is this one.
 * A host's own ChainClient reads balances only: it cannot send.
 */
export function evmNodeFor(config: ChainsConfig, chainId: string): EvmNode {
  for (const chain of ['ethereum', 'avalanche', 'polygon'] as const) {
    for (const network of ['mainnet', 'testnet'] as const) {
      const endpoint = config[chain]?.[network];
      if (endpoint === undefined || (typeof endpoint === 'object' && 'getBalance' in endpoint)) continue;
      const settings = typeof endpoint === 'string' ? { url: endpoint } : endpoint;
      const id = settings.chainId ?? EVM_CHAIN_IDS[chain][network];
      if (String(id) !== chainId) continue;
      return jsonRpcNode({
        url: settings.url,
        label: `${chain} ${network} (chain ${chainId})`,
        timeoutMs: settings.timeoutMs ?? config.timeoutMs,
        retries: settings.retries ?? config.retries,
        headers: settings.headers ?? {},
        fetch: config.fetch ?? ((input, init) => fetch(input, init)),
      });
    }
  }
  throw new LatchkeyError(
    'chain_not_configured',
    `No RPC endpoint is configured for EVM chain ${chainId}: set chains.<chain>.<network> (with chainId for a development node).`,
  );
}

export interface RpcEndpoint {
  url: string;
  label: string;
  timeoutMs: number;
  retries: number;
  headers: Record<string, string>;
  fetch: typeof fetch;
}

/** A JSON-RPC 2.0 node over HTTP (EVM and Solana speak the same envelope). */
export function jsonRpcNode(ep: RpcEndpoint): EvmNode {
  let nextId = 1;
  const once = async (method: string, params: unknown[]) => {
    const id = nextId++;
    let res: Response;
    let text: string;
    try {
      res = await ep.fetch(ep.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...ep.headers },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
        signal: AbortSignal.timeout(ep.timeoutMs),
      });
      text = await res.text();
    } catch (cause) {
      const timedOut =
        cause instanceof Error && (cause.name === 'TimeoutError' || cause.name === 'AbortError');
      throw timedOut
        ? new LatchkeyError(
            'chain_timeout',
            `${ep.label}: ${method} had no answer within ${ep.timeoutMs} ms.`,
            {
              cause,
            },
          )
        : new LatchkeyError('chain_unavailable', `${ep.label}: the RPC endpoint could not be reached.`, {
            cause,
          });
    }
    if (TRANSIENT.has(res.status))
      throw new LatchkeyError(
        'chain_unavailable',
        `${ep.label}: the RPC endpoint answered HTTP ${res.status}.`,
      );
    if (text.length > MAX_ANSWER_CHARS)
      throw new LatchkeyError('chain_invalid_response', `${ep.label}: the answer to ${method} is too large.`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (!isRecord(body) || body.jsonrpc !== '2.0' || body.id !== id) {
      throw new LatchkeyError(
        res.status === 200 ? 'chain_invalid_response' : 'chain_unavailable',
        `${ep.label}: the answer to ${method} is not a JSON-RPC 2.0 answer to this request.`,
      );
    }
    if (isRecord(body.error)) {
      const code = Number.isInteger(body.error.code) ? (body.error.code as number) : 0;
      const message = typeof body.error.message === 'string' ? body.error.message.slice(0, 300) : '';
      return { refusal: { code, message } };
    }
    if (!('result' in body))
      throw new LatchkeyError(
        'chain_invalid_response',
        `${ep.label}: the answer to ${method} has no result.`,
      );
    return { result: body.result };
  };
  return {
    label: ep.label,
    async call(method, params, opts = {}) {
      const retries = opts.retries ?? ep.retries;
      for (let attempt = 0; ; attempt++) {
        try {
          return await once(method, params);
        } catch (err) {
          const transient =
            err instanceof LatchkeyError &&
            (err.errorType === 'chain_timeout' || err.errorType === 'chain_unavailable');
          if (!transient || attempt >= retries) throw err;
          await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt));
        }
      }
    },
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
