import { describe, expect, it } from 'vitest';
import { createJournal, journaledMap } from '../src/journal.js';
import { memoryStorage } from '../src/memory-storage.js';

type Row = { n: number; tag?: string };

function table(rows: Array<[string, Row]>) {
  const journal = createJournal();
  const map = journaledMap<string, Row>(journal);
  for (const [k, v] of rows) map.set(k, v);
  return { journal, map };
}

const contents = (map: Map<string, Row>) => Object.fromEntries([...map].map(([k, v]) => [k, { ...v }]));

describe('journaledMap', () => {
  it('puts back inserted, replaced, deleted and in-place changed rows on rollback', () => {
    const { journal, map } = table([
      ['a', { n: 1 }],
      ['b', { n: 2 }],
      ['c', { n: 3 }],
      ['d', { n: 4 }],
    ]);
    const before = contents(map);
    journal.begin();
    map.set('new', { n: 9 });
    map.set('a', { n: 10 });
    map.delete('b');
    map.get('c')!.n = 30; // a repo changing a row's field in place
    for (const row of map.values()) row.tag = 'seen'; // and through iteration
    map.set('a', { n: 11 }); // a key touched twice keeps its first image
    journal.rollback();
    expect(contents(map)).toEqual(before);
  });

  it('keeps the changes of a committed transaction, and a later rollback undoes only its own', () => {
    const { journal, map } = table([['a', { n: 1 }]]);
    journal.begin();
    map.get('a')!.n = 2;
    map.set('b', { n: 3 });
    journal.commit();
    journal.begin();
    map.get('a')!.n = 4;
    map.clear();
    journal.rollback();
    expect(contents(map)).toEqual({ a: { n: 2 }, b: { n: 3 } });
  });

  it('records nothing outside a transaction', () => {
    const { journal, map } = table([['a', { n: 1 }]]);
    map.get('a')!.n = 5;
    map.delete('a');
    journal.rollback();
    expect(map.size).toBe(0);
  });
});

describe('memoryStorage transactions', () => {
  it('restores a row a failed transaction changed in place', async () => {
    const s = memoryStorage();
    expect((await s.rateLimits.hit('k', 0, 10)).count).toBe(1);
    await expect(
      s.transaction(async (tx) => {
        expect((await tx.rateLimits.hit('k', 0, 10)).count).toBe(2);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect((await s.rateLimits.hit('k', 0, 10)).count).toBe(2);
  });
});
