import type { Result, Router } from 'hono/router';
import { TrieRouter } from 'hono/router/trie-router';

/** Paths remembered at most; past that the memo starts over (a scan of unknown paths cannot grow it). */
const MAX_REMEMBERED = 1024;

/**
 * Hono's trie router, with the match of a path that binds no parameter remembered per method
 * and path. The route table cannot use Hono's RegExp router (a parameter segment beside literal
 * ones, `/v1/wallets/{wallet_id}/…` beside `/v1/wallets/policies`, is a shape it refuses), and
 * walking the trie cost about as much as a cheap route. Most requests are for paths without
 * parameters, and their match never changes once the routes are in: Hono only reads a match.
 */
export function cachingRouter<T>(): Router<T> {
  const trie = new TrieRouter<T>();
  const remembered = new Map<string, Result<T>>();
  return {
    name: 'CachingTrieRouter',
    add(method, path, handler) {
      remembered.clear();
      trie.add(method, path, handler);
    },
    match(method, path) {
      const key = `${method} ${path}`;
      const known = remembered.get(key);
      if (known) return known;
      const found = trie.match(method, path);
      if (found[0].every(([, params]) => isEmpty(params as object))) {
        if (remembered.size >= MAX_REMEMBERED) remembered.clear();
        remembered.set(key, found);
      }
      return found;
    },
  };
}

function isEmpty(params: object): boolean {
  for (const _ in params) return false;
  return true;
}
