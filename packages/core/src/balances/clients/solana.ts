import type { ChainClient } from '../../ports/chain-client.js';
import { jsonRpc } from './json-rpc.js';
import { type Endpoint, invalidAnswer, isRecord } from './transport.js';

const U64_MAX = 2n ** 64n - 1n;
const COMMITMENT = { commitment: 'confirmed' } as const;

/**
 * Solana JSON-RPC: `getBalance` (lamports) for SOL; for an SPL token, the sum of
 * `tokenAmount.amount` over `getTokenAccountsByOwner` filtered by the mint, `jsonParsed`
 * (a wallet may hold a token in its associated account and in others). Reads at `confirmed`.
 */
export function solanaClient(ep: Endpoint): ChainClient {
  const call = jsonRpc(ep);
  return {
    async getBalance({ address, asset, decimals }) {
      if (asset === 'native') {
        const result = await call('getBalance', [address, COMMITMENT]);
        const lamports = isRecord(result) ? result.value : undefined;
        if (typeof lamports === 'string') throw invalidAnswer(ep, 'getBalance value is not a number.');
        return u64(ep, lamports, 'getBalance value');
      }
      const result = await call('getTokenAccountsByOwner', [
        address,
        { mint: asset.contract },
        { ...COMMITMENT, encoding: 'jsonParsed' },
      ]);
      const accounts = isRecord(result) ? result.value : undefined;
      if (!Array.isArray(accounts)) throw invalidAnswer(ep, 'getTokenAccountsByOwner value is not a list.');
      let total = 0n;
      for (const entry of accounts) {
        const info = parsedInfo(entry);
        if (!info) throw invalidAnswer(ep, 'a token account is not in jsonParsed form.');
        // The filter was by this mint and owner; an answer about others is not about this wallet.
        if (info.mint !== asset.contract || info.owner !== address)
          throw invalidAnswer(ep, 'a token account has another mint or owner.');
        const amount = isRecord(info.tokenAmount) ? info.tokenAmount : undefined;
        if (amount?.decimals !== decimals)
          throw invalidAnswer(ep, `the mint reports other decimals than ${decimals}.`);
        if (typeof amount.amount !== 'string') throw invalidAnswer(ep, 'tokenAmount.amount is not a string.');
        total += u64(ep, amount.amount, 'tokenAmount.amount');
      }
      return total;
    },
  };
}

function parsedInfo(entry: unknown): Record<string, unknown> | undefined {
  if (!isRecord(entry) || !isRecord(entry.account)) return undefined;
  const data = entry.account.data;
  if (!isRecord(data) || !isRecord(data.parsed)) return undefined;
  return isRecord(data.parsed.info) ? data.parsed.info : undefined;
}

/** A u64 sent as a JSON number (exact: see parseJsonExact) or as a decimal string. */
function u64(ep: Endpoint, v: unknown, what: string): bigint {
  let n: bigint | undefined;
  if (typeof v === 'bigint') n = v;
  else if (typeof v === 'number' && Number.isSafeInteger(v)) n = BigInt(v);
  else if (typeof v === 'string' && /^(0|[1-9]\d{0,19})$/.test(v)) n = BigInt(v);
  if (n === undefined || n < 0n || n > U64_MAX) throw invalidAnswer(ep, `${what} is not a u64.`);
  return n;
}
