/**
 * The undo log of the memory Storage's transaction in progress. A transaction that throws puts
 * back exactly the rows it touched, so its cost follows what it did, not how much is stored (a
 * copy of the whole state per transaction made every write slower as the tables grew).
 */
export interface Journal {
  /** Starts recording; the memory Storage's lock guarantees one transaction at a time. */
  begin(): void;
  /** Forgets the recorded steps: the transaction's changes stay. */
  commit(): void;
  /** Undoes every change since `begin`, newest first. */
  rollback(): void;
  /** The open transaction's number, or 0 outside one. */
  readonly current: number;
  record(undo: () => void): void;
}

export function createJournal(): Journal {
  let steps: Array<() => void> | null = null;
  let count = 0;
  let current = 0;
  return {
    begin() {
      steps = [];
      current = ++count;
    },
    commit() {
      steps = null;
      current = 0;
    },
    rollback() {
      const undo = steps ?? [];
      steps = null;
      current = 0;
      for (let i = undo.length - 1; i >= 0; i--) undo[i]!();
    },
    get current() {
      return current;
    },
    record(undo) {
      steps?.push(undo);
    },
  };
}

const proto = Map.prototype;

/**
 * A Map whose rows a rollback restores. Inside a transaction, the first time a key is read,
 * written, deleted or iterated over, its row as it was is kept (a shallow copy: the repos change
 * a row's own fields or an index's list in place, never what those hold) and put back on rollback. Outside
 * a transaction it is a plain Map.
 */
export function journaledMap<K, V extends object>(journal: Journal): Map<K, V> {
  const map = new Map<K, V>();
  let touchedIn = 0;
  let touched = new Set<K>();

  const keep = (key: K) => {
    const tx = journal.current;
    if (tx === 0) return;
    if (touchedIn !== tx) {
      touchedIn = tx;
      touched = new Set();
    }
    if (touched.has(key)) return;
    touched.add(key);
    if (proto.has.call(map, key)) {
      const row = proto.get.call(map, key) as V;
      const before = (Array.isArray(row) ? row.slice() : { ...row }) as V;
      journal.record(() => proto.set.call(map, key, before));
    } else {
      journal.record(() => proto.delete.call(map, key));
    }
  };

  function* keptEntries(): MapIterator<[K, V]> {
    for (const entry of proto.entries.call(map) as MapIterator<[K, V]>) {
      keep(entry[0]);
      yield entry;
    }
  }
  function* keptValues(): MapIterator<V> {
    for (const [, value] of keptEntries()) yield value;
  }
  // Outside a transaction the Map's own iterators: nothing to keep, and they are faster.
  const entries = () =>
    journal.current === 0 ? (proto.entries.call(map) as MapIterator<[K, V]>) : keptEntries();
  const values = () => (journal.current === 0 ? (proto.values.call(map) as MapIterator<V>) : keptValues());

  return Object.assign(map, {
    get: (key: K) => {
      keep(key);
      return proto.get.call(map, key) as V | undefined;
    },
    set: (key: K, value: V) => {
      keep(key);
      proto.set.call(map, key, value);
      return map;
    },
    delete: (key: K) => {
      keep(key);
      return proto.delete.call(map, key);
    },
    clear: () => {
      for (const key of proto.keys.call(map) as MapIterator<K>) keep(key);
      proto.clear.call(map);
    },
    entries,
    values,
    [Symbol.iterator]: entries,
    forEach: (fn: (value: V, key: K, m: Map<K, V>) => void, thisArg?: unknown) => {
      for (const [key, value] of entries()) fn.call(thisArg, value, key, map);
    },
  });
}
