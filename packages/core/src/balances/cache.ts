import type { BalanceQuery, ChainClient } from '../ports/chain-client.js';
import type { Clock } from '../ports/clock.js';

/**
 * A client that reuses a balance for `ttlSeconds` and joins concurrent reads of the same one, so
 * a page that asks for a balance repeatedly costs one RPC call. Only successes are kept; at most
 * `maxEntries`, the oldest dropped first. Balances are public chain data, so one cache serves
 * every App.
 */
export function cachedClient(
  client: ChainClient,
  options: { ttlSeconds: number; clock: Clock; maxEntries?: number },
): ChainClient {
  const ttlMs = options.ttlSeconds * 1000;
  const maxEntries = options.maxEntries ?? 10_000;
  const entries = new Map<string, { value: bigint; until: number }>();
  const inFlight = new Map<string, Promise<bigint>>();

  return {
    getBalance(query) {
      const key = cacheKey(query);
      const hit = entries.get(key);
      if (hit && hit.until > options.clock.now()) return Promise.resolve(hit.value);
      entries.delete(key);
      const pending = inFlight.get(key);
      if (pending) return pending;
      const read = client
        .getBalance(query)
        .then((value) => {
          if (ttlMs > 0) {
            entries.set(key, { value, until: options.clock.now() + ttlMs });
            if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
          }
          return value;
        })
        .finally(() => inFlight.delete(key));
      inFlight.set(key, read);
      return read;
    },
  };
}

const cacheKey = (q: BalanceQuery) =>
  JSON.stringify([q.address, q.asset === 'native' ? 'native' : q.asset.contract, q.decimals]);
