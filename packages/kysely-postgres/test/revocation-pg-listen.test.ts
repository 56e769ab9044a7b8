import { EventEmitter } from 'node:events';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LISTEN_APPLICATION_NAME, pgListen } from '../src/revocations/pg-listen.js';
import { recordingListener } from './revocation-helpers.js';

type Step = 'ok' | 'refuse' | 'break-on-listen' | 'hang';

/**
 * A pg Pool whose Client class is a stand-in following `plan` (one step per client made, then
 * 'ok'): the reconnect schedule and the races around LISTEN, without a database or real time.
 */
function poolOfFakes(plan: Step[], options: pg.PoolConfig = {}) {
  const made: FakeClient[] = [];
  class FakeClient extends EventEmitter {
    readonly step: Step;
    readonly madeAt = Date.now();
    ended = false;
    constructor(readonly config: pg.ClientConfig) {
      super();
      this.step = plan.shift() ?? 'ok';
      made.push(this);
    }
    async connect() {
      if (this.step === 'refuse')
        throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      // A connect that never answers, until the client is ended.
      if (this.step === 'hang')
        await new Promise((_, reject) => this.once('end', () => reject(new Error('Connection terminated'))));
    }
    async query(_text: string) {
      // The backend goes away as the LISTEN is answered: the error event comes first.
      if (this.step === 'break-on-listen') this.emit('error', new Error('terminating connection'));
      return { rows: [] };
    }
    async end() {
      if (this.ended) return;
      this.ended = true;
      queueMicrotask(() => this.emit('end'));
    }
    /** The backend is terminated while the client listens. */
    terminate() {
      this.emit('error', new Error('terminating connection due to administrator command'));
      this.emit('end');
    }
  }
  const pool = new pg.Pool({ ...options, Client: FakeClient as never });
  return { pool, made };
}

const handlersOf = (recorded: ReturnType<typeof recordingListener>) => ({
  message: () => {},
  lost: recorded.listener.lost,
  restored: recorded.listener.restored,
});

afterEach(() => {
  vi.useRealTimers();
});

describe('the LISTEN client beside a pg Pool', () => {
  it('is made like the pool’s clients, with the password, a name, TCP keepalive and a bounded connect', async () => {
    const { pool, made } = poolOfFakes([], { host: 'db.example', user: 'latchkey', password: 'hunter2' });
    const listening = await pgListen(pool)('chan', handlersOf(recordingListener()));
    expect(made[0]!.config).toMatchObject({
      host: 'db.example',
      user: 'latchkey',
      password: 'hunter2',
      application_name: LISTEN_APPLICATION_NAME,
      keepAlive: true,
      connectionTimeoutMillis: 5_000,
    });
    await listening.close();
    const own = poolOfFakes([], { connectionTimeoutMillis: 1_234 });
    await (await pgListen(own.pool)('chan', handlersOf(recordingListener()))).close();
    expect(own.made[0]!.config.connectionTimeoutMillis).toBe(1_234);
  });

  it('fails an attempt whose connection breaks as its LISTEN is answered', async () => {
    const { pool, made } = poolOfFakes(['break-on-listen']);
    await expect(pgListen(pool)('chan', handlersOf(recordingListener()))).rejects.toThrow(/terminating/);
    expect(made[0]!.ended).toBe(true);
  });

  it('tells lost once per break, retries after 250 ms doubling to 5 s, and starts at 250 ms again', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { pool, made } = poolOfFakes(['ok', ...Array<Step>(7).fill('refuse'), 'ok', 'refuse']);
    const recorded = recordingListener();
    const listening = await pgListen(pool)('chan', handlersOf(recorded));
    const brokeAt = Date.now();
    (made[0] as unknown as { terminate(): void }).terminate();
    expect(recorded.events).toEqual(['lost']);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(recorded.events).toEqual(['lost', 'restored']);
    expect(made.slice(1).map((c) => c.madeAt - brokeAt)).toEqual([
      250, 750, 1_750, 3_750, 7_750, 12_750, 17_750, 22_750,
    ]);
    const secondBreak = Date.now();
    (made[8] as unknown as { terminate(): void }).terminate();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(made.slice(9).map((c) => c.madeAt - secondBreak)).toEqual([250, 750]);
    expect(recorded.events).toEqual(['lost', 'restored', 'lost', 'restored']);
    await listening.close();
  });

  it('once closed while waiting to retry, tries no more and leaves no timer nor client', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { pool, made } = poolOfFakes(['ok', 'refuse', 'refuse']);
    const recorded = recordingListener();
    const listening = await pgListen(pool)('chan', handlersOf(recorded));
    (made[0] as unknown as { terminate(): void }).terminate();
    await vi.advanceTimersByTimeAsync(800);
    expect(made).toHaveLength(3);
    await listening.close();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(made).toHaveLength(3);
    expect(made.every((c) => c.ended)).toBe(true);
    expect(recorded.events).toEqual(['lost']);
  });

  it('once closed while connecting again, ends that client and leaves no retry', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { pool, made } = poolOfFakes(['ok', 'hang']);
    const recorded = recordingListener();
    const listening = await pgListen(pool)('chan', handlersOf(recorded));
    (made[0] as unknown as { terminate(): void }).terminate();
    await vi.advanceTimersByTimeAsync(250);
    expect(made).toHaveLength(2);
    await listening.close();
    await vi.advanceTimersByTimeAsync(0);
    expect(made[1]!.ended).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    expect(recorded.events).toEqual(['lost']);
  });
});
