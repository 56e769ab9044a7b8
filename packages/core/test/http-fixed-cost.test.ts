import { afterEach, describe, expect, it, vi } from 'vitest';
import { cachingRouter } from '../src/http/caching-router.js';
import { deadlineRacer } from '../src/http/deadline.js';

const later = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));
const timedOut = () => new Error('timed out');

describe('deadlineRacer: one timer for every request', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('times out only the work still running at its own deadline, and leaves no timer behind', async () => {
    vi.useFakeTimers();
    const race = deadlineRacer(100);
    const outcomes: string[] = [];
    const track = (name: string, p: Promise<unknown>) =>
      p.then(
        (v) => outcomes.push(`${name}:${String(v)}`),
        (e: Error) => outcomes.push(`${name}:${e.message}`),
      );
    const all = [
      track(
        'slow',
        race(() => later(500, 'done'), timedOut),
      ),
      track(
        'fast',
        race(() => later(10, 'done'), timedOut),
      ),
      track(
        'failing',
        race(() => Promise.reject(new Error('boom')), timedOut),
      ),
    ];
    await vi.advanceTimersByTimeAsync(60);
    // Arrives 60 ms later: its deadline is 160 ms, not the first request's 100.
    all.push(
      track(
        'late',
        race(() => later(70, 'done'), timedOut),
      ),
    );
    await vi.advanceTimersByTimeAsync(50);
    expect(outcomes).toEqual(['failing:boom', 'fast:done', 'slow:timed out']);
    await vi.advanceTimersByTimeAsync(100);
    await Promise.all(all);
    expect(outcomes).toEqual(['failing:boom', 'fast:done', 'slow:timed out', 'late:done']);
    // The slow work's own timer (500 ms) is the test's; the racer keeps none once all settled.
    await vi.advanceTimersByTimeAsync(500);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('times out work that overruns even when later work settled first', async () => {
    vi.useFakeTimers();
    const race = deadlineRacer(100);
    const first = race(() => new Promise<never>(() => {}), timedOut).catch((e: Error) => e.message);
    await vi.advanceTimersByTimeAsync(30);
    const second = race(() => later(10, 'ok'), timedOut);
    await vi.advanceTimersByTimeAsync(20);
    expect(await second).toBe('ok');
    await vi.advanceTimersByTimeAsync(60);
    expect(await first).toBe('timed out');
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('cachingRouter', () => {
  const router = () => {
    const r = cachingRouter<string>();
    r.add('ALL', '*', 'all');
    r.add('ALL', '/v1/*', 'v1');
    r.add('GET', '/v1/health', 'health');
    r.add('GET', '/v1/users/:id', 'user');
    r.add('GET', '/v1/users/search', 'search');
    return r;
  };
  const handlers = (result: ReturnType<ReturnType<typeof router>['match']>) =>
    result[0].map(([h, params]) => [h, { ...(params as object) }]);

  it('matches as the trie router does, parameters included', () => {
    const r = router();
    expect(handlers(r.match('GET', '/v1/health'))).toEqual([
      ['all', {}],
      ['v1', {}],
      ['health', {}],
    ]);
    expect(handlers(r.match('GET', '/v1/users/u1'))).toEqual([
      ['all', {}],
      ['v1', {}],
      ['user', { id: 'u1' }],
    ]);
    expect(handlers(r.match('GET', '/v1/users/u2'))).toEqual([
      ['all', {}],
      ['v1', {}],
      ['user', { id: 'u2' }],
    ]);
    expect(handlers(r.match('POST', '/v1/health'))).toEqual([
      ['all', {}],
      ['v1', {}],
    ]);
  });

  it('remembers the match of a path without parameters, not of one with', () => {
    const r = router();
    expect(r.match('GET', '/v1/health')).toBe(r.match('GET', '/v1/health'));
    expect(r.match('GET', '/v1/users/u1')).not.toBe(r.match('GET', '/v1/users/u1'));
  });
});
