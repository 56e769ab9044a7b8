import type { Storage } from '../ports/storage.js';
import type { EventRecord } from './repo.js';
import type { ImpliedEvent, WriteRules } from './storage-events.js';

type AnyMethod = (...args: unknown[]) => Promise<unknown>;
type AnyRule = {
  when?: (...args: unknown[]) => boolean;
  events: (result: unknown, ...args: unknown[]) => ImpliedEvent[];
  together?: { method: string; expected: (...args: unknown[]) => ImpliedEvent[]; dataFromRow?: true };
};

const sameEvent = (a: ImpliedEvent, b: ImpliedEvent) =>
  a.type === b.type && a.app_id === b.app_id && JSON.stringify(a.data) === JSON.stringify(b.data);

/** The events a repo built from its written row: each implied event under its expected id and time. */
const withRowData = (expected: EventRecord[], implied: ImpliedEvent[]): EventRecord[] =>
  implied.flatMap((i) => {
    const e = expected.find((x) => x.type === i.type && x.app_id === i.app_id);
    return e ? [{ ...e, data: i.data }] : [];
  });

/**
 * A Storage that writes an event beside each write `rules` names, in that write's transaction
 * (a transactional outbox): a write outside any transaction gets a transaction of its own; one
 * inside joins the caller's. Listeners hear of the events once the outermost transaction has
 * committed, so they never see a change that was rolled back.
 */
export function recordingStorage(
  base: Storage,
  rules: WriteRules,
  stamp: (event: ImpliedEvent) => EventRecord,
  committed: (events: EventRecord[]) => void,
): { storage: Storage; emit: (event: ImpliedEvent, tx?: Storage) => Promise<void> } {
  // Each transaction handle given out, with the events its transaction has written so far.
  const pendingOf = new WeakMap<Storage, EventRecord[]>();
  const wrap = (storage: Storage, pending: EventRecord[] | null): Storage => {
    const record = async (tx: Storage, implied: ImpliedEvent[]) => {
      const events = implied.map(stamp);
      for (const event of events) await tx.events.insert(event);
      return events;
    };
    const repos: Record<string, unknown> = {};
    for (const [repoName, repoRules] of Object.entries(rules) as Array<
      [keyof Storage, Record<string, AnyRule>]
    >) {
      const repo = storage[repoName] as unknown as Record<string, AnyMethod>;
      const wrapped: Record<string, AnyMethod> = { ...repo };
      for (const [method, rule] of Object.entries(repoRules)) {
        const together = rule.together && repo[rule.together.method];
        // An optional method this storage lacks stays absent, so callers can see it is.
        if (!repo[method] && !together) continue;
        wrapped[method] = async (...args) => {
          if (rule.when && !rule.when(...args)) return repo[method]?.(...args);
          if (together) {
            const expected = rule.together!.expected(...args).map(stamp);
            const result = await together(...args, expected);
            // The repo wrote those of the expected events that the write implies (all or none,
            // unless the rule's `expected` offers alternatives, as a verdict's events do).
            const implied = rule.events(result, ...args);
            const events = rule.together!.dataFromRow
              ? withRowData(expected, implied)
              : expected.filter((e) => implied.some((i) => sameEvent(i, e)));
            if (pending) pending.push(...events);
            else if (events.length > 0) committed(events);
            return result;
          }
          if (pending) {
            const result = await repo[method]?.(...args);
            pending.push(...(await record(storage, rule.events(result, ...args))));
            return result;
          }
          let events: EventRecord[] = [];
          const result = await storage.transaction(async (tx) => {
            const r = await (tx[repoName] as unknown as Record<string, AnyMethod>)[method]?.(...args);
            events = await record(tx, rule.events(r, ...args));
            return r;
          });
          if (events.length > 0) committed(events);
          return result;
        };
      }
      repos[repoName] = wrapped;
    }
    const self: Storage = {
      ...storage,
      ...(repos as Partial<Storage>),
      async transaction(fn) {
        if (pending) return storage.transaction((tx) => fn(wrap(tx, pending)));
        const collected: EventRecord[] = [];
        const result = await storage.transaction((tx) => fn(wrap(tx, collected)));
        if (collected.length > 0) committed(collected);
        return result;
      },
    };
    if (pending) pendingOf.set(self, pending);
    return self;
  };
  const storage = wrap(base, null);
  return {
    storage,
    async emit(implied, tx) {
      const event = stamp(implied);
      const pending = tx && pendingOf.get(tx);
      await (pending ? tx : storage).events.insert(event);
      if (pending) pending.push(event);
      else committed([event]);
    },
  };
}
