/**
 * Reads remembered for a while, as promises: the read is kept from the moment it starts, so when
 * an entry expires under load the callers in flight share one read instead of each making their
 * own. A read that fails is dropped (the next call reads again); `lifetime` may shorten an
 * entry once its value is known. Past `maxEntries`, everything is dropped at once: the entries are
 * cheap to read again, and a bound matters more than which ones go.
 */
export interface ExpiringReads<K, V> {
  get(key: K): Promise<V>;
  forget(key: K): void;
  clear(): void;
}

export function expiringReads<K, V>(options: {
  read: (key: K, now: number) => Promise<V>;
  /** Now, in the unit `seconds` and `lifetime` use. */
  now: () => number;
  seconds: number;
  /** When the entry expires, given its value and the default expiry (`now + seconds`). */
  lifetime?: (value: V, until: number) => number;
  maxEntries?: number;
}): ExpiringReads<K, V> {
  const { read, now, seconds, lifetime, maxEntries = 10_000 } = options;
  const entries = new Map<K, { value: Promise<V>; until: number }>();
  return {
    get(key) {
      const at = now();
      const cached = entries.get(key);
      if (cached && cached.until > at) return cached.value;
      if (entries.size >= maxEntries) entries.clear();
      const entry = { value: read(key, at), until: at + seconds };
      entries.set(key, entry);
      entry.value.then(
        (value) => {
          if (lifetime) entry.until = lifetime(value, entry.until);
        },
        () => {
          if (entries.get(key) === entry) entries.delete(key);
        },
      );
      return entry.value;
    },
    forget: (key) => {
      entries.delete(key);
    },
    clear: () => entries.clear(),
  };
}
