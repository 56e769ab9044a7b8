import { describe, expect, it } from 'vitest';
import { expiringReads } from '../src/shared/expiring-reads.js';

/** A cache over a counted read whose clock the test moves. */
function counted(
  options: { fail?: boolean; lifetime?: (value: string, until: number) => number; maxEntries?: number } = {},
) {
  let now = 1000;
  const reads: string[] = [];
  const cache = expiringReads<string, string>({
    read: async (key, at) => {
      reads.push(`${key}@${at}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (options.fail) throw new Error(`no ${key}`);
      return `${key}:${reads.length}`;
    },
    now: () => now,
    seconds: 5,
    ...(options.lifetime ? { lifetime: options.lifetime } : {}),
    ...(options.maxEntries ? { maxEntries: options.maxEntries } : {}),
  });
  return { cache, reads, advance: (s: number) => (now += s) };
}

describe('expiringReads', () => {
  it('shares one read among callers in flight and answers from it until it expires', async () => {
    const { cache, reads, advance } = counted();
    const answers = await Promise.all(Array.from({ length: 20 }, () => cache.get('a')));
    expect(new Set(answers)).toEqual(new Set(['a:1']));
    expect(reads).toEqual(['a@1000']);
    advance(4);
    expect(await cache.get('a')).toBe('a:1');
    advance(1);
    expect(await cache.get('a')).toBe('a:2');
    expect(reads).toEqual(['a@1000', 'a@1005']);
  });

  it('drops a failed read, so the next call reads again', async () => {
    const { cache, reads } = counted({ fail: true });
    await expect(Promise.all([cache.get('a'), cache.get('a')])).rejects.toThrow('no a');
    await expect(cache.get('a')).rejects.toThrow('no a');
    expect(reads).toHaveLength(2);
  });

  it('lets the value shorten its own lifetime', async () => {
    const { cache, reads, advance } = counted({ lifetime: (_value, until) => until - 3 });
    await cache.get('a');
    advance(1);
    await cache.get('a');
    expect(reads).toHaveLength(1);
    advance(1);
    await cache.get('a');
    expect(reads).toHaveLength(2);
  });

  it('forgets one key, or all, and stays within maxEntries', async () => {
    const { cache, reads } = counted({ maxEntries: 2 });
    await cache.get('a');
    await cache.get('b');
    cache.forget('a');
    await cache.get('a');
    await cache.get('b');
    expect(reads.map((r) => r.split('@')[0])).toEqual(['a', 'b', 'a']);
    await cache.get('c'); // past the bound: every entry goes
    await cache.get('b');
    expect(reads.map((r) => r.split('@')[0])).toEqual(['a', 'b', 'a', 'c', 'b']);
    cache.clear();
    await cache.get('b');
    expect(reads).toHaveLength(6);
  });
});
