import { describe, expect, it } from 'vitest';
import { batched } from '../src/repos/batched.js';

/** A runAll whose statements the test finishes by hand, recording what each carried. */
function manual() {
  const statements: Array<{ items: number[]; finish: () => void; fail: (err: Error) => void }> = [];
  const runAll = (items: number[]) =>
    new Promise<number[]>((resolve, reject) => {
      statements.push({ items, finish: () => resolve(items.map((i) => i * 10)), fail: reject });
    });
  return { statements, runAll };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('batched', () => {
  it('runs a call alone at once, and the calls that arrive meanwhile together on the next go', async () => {
    const { statements, runAll } = manual();
    const call = batched(runAll);
    const first = call(1);
    const rest = [call(2), call(3), call(4)];
    expect(statements.map((s) => s.items)).toEqual([[1]]);
    statements[0]!.finish();
    expect(await first).toBe(10);
    await tick();
    // 2, 3 and 4 arrived after statement [1] started: never part of it, all in the next one.
    expect(statements.map((s) => s.items)).toEqual([[1], [2, 3, 4]]);
    const late = call(5);
    statements[1]!.finish();
    expect(await Promise.all(rest)).toEqual([20, 30, 40]);
    await tick();
    expect(statements.map((s) => s.items)).toEqual([[1], [2, 3, 4], [5]]);
    statements[2]!.finish();
    expect(await late).toBe(50);
  });

  it('keeps up to maxInFlight statements going, each with what queued before it started', async () => {
    const { statements, runAll } = manual();
    const call = batched(runAll, { maxInFlight: 2, maxBatch: 2 });
    const results = [1, 2, 3, 4, 5, 6].map(call);
    expect(statements.map((s) => s.items)).toEqual([[1], [2]]);
    statements[1]!.finish();
    await tick();
    expect(statements.map((s) => s.items)).toEqual([[1], [2], [3, 4]]);
    statements[0]!.finish();
    await tick();
    expect(statements.map((s) => s.items)).toEqual([[1], [2], [3, 4], [5, 6]]);
    statements[2]!.finish();
    statements[3]!.finish();
    expect(await Promise.all(results)).toEqual([10, 20, 30, 40, 50, 60]);
  });

  it('fails only the bad item of a failed group: the items run again one by one', async () => {
    const seen: number[][] = [];
    const call = batched(async (items: number[]) => {
      seen.push(items);
      if (items.includes(3)) throw new Error('bad item');
      return items.map((i) => i * 10);
    });
    const results = await Promise.allSettled([1, 2, 3, 4].map(call));
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : 'failed'))).toEqual([
      10,
      20,
      'failed',
      40,
    ]);
    expect(seen).toEqual([[1], [2, 3, 4], [2], [3], [4]]);
  });
});
