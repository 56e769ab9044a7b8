import type { SpendAsset } from './repo.js';

/** What one rule makes of a request: a refusal, an amount to count against a daily cap, or nothing. */
export type Check =
  | { refused: string }
  | { cap: { asset: SpendAsset; amount: bigint; limit: bigint } }
  | null;

/**
 * Allow-lists as sets, built once per list. Policies are cached between signatures, so a
 * signature looks its value up instead of rebuilding a set of up to 1,000 entries for each rule
 * of each policy. A list belongs to one rule and is always read with the same key function.
 */
const allowSets = new WeakMap<string[], Set<string>>();

export function allowSet(items: string[], key: (item: string) => string): Set<string> {
  let set = allowSets.get(items);
  if (!set) {
    set = new Set(items.map(key));
    allowSets.set(items, set);
  }
  return set;
}

export const lowerCase = (x: string) => x.toLowerCase();
