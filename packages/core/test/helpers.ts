import {
  createLatchkey,
  type Latchkey,
  type LatchkeyOptions,
  type OutboundMessage,
  type Storage,
} from '@latchkey/core';
import { memoryStorage } from '@latchkey/memory';

/** A clock tests move by hand. */
export function manualClock(start = Date.UTC(2027, 0, 1)) {
  let ms = start;
  return {
    now: () => ms,
    advance: (seconds: number) => {
      ms += seconds * 1000;
    },
  };
}

/** A sender that keeps what it was given. */
export function capturingSender() {
  const sent: OutboundMessage[] = [];
  return {
    sent,
    send: async (m: OutboundMessage) => {
      sent.push(m);
    },
    /** The code of the last message to `to`. */
    lastCode: (to: string) => {
      const m = sent.filter((x) => x.to === to).at(-1);
      if (!m?.code) throw new Error(`no code was sent to ${to}`);
      return m.code;
    },
  };
}

/** A Latchkey on memory storage with a manual clock and a capturing sender. */
export function testLatchkey(over: Partial<LatchkeyOptions> = {}) {
  const clock = manualClock();
  const sender = capturingSender();
  const latchkey = createLatchkey({ storage: memoryStorage(), secret: TEST_SECRET, clock, sender, ...over });
  return { latchkey, clock, sender };
}

export const TEST_SECRET = 'test-secret-that-is-long-enough-0123456789';

export interface TestApp {
  latchkey: Latchkey;
  app_id: string;
  secret_key: string;
  public_token: string;
  /** Calls the HTTP API with the App's secret key (or `key`), JSON in and out. */
  call(
    method: string,
    path: string,
    body?: unknown,
    key?: string | null,
  ): Promise<{ status: number; body: any; headers: Headers }>;
}

export async function testApp(
  latchkey = createLatchkey({ storage: memoryStorage(), secret: TEST_SECRET }),
): Promise<TestApp> {
  const keys = await latchkey.apps.create({ name: 'Test App' });
  const call: TestApp['call'] = async (method, path, body, key = keys.secret_key) => {
    const headers: Record<string, string> = {};
    if (key) headers.authorization = `Bearer ${key}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await latchkey.fetch(
      new Request(`http://latchkey.test${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
  };
  return { latchkey, ...keys, call };
}

/** Asserts the documented error body and returns it. */
export function expectErrorShape(res: { status: number; body: any; headers: Headers }) {
  const { body } = res;
  if (
    typeof body !== 'object' ||
    body === null ||
    body.status_code !== res.status ||
    typeof body.request_id !== 'string' ||
    body.request_id !== res.headers.get('x-request-id') ||
    typeof body.error_type !== 'string' ||
    typeof body.error_message !== 'string'
  ) {
    throw new Error(`not the documented error shape: ${res.status} ${JSON.stringify(body)}`);
  }
  return body as {
    status_code: number;
    request_id: string;
    error_type: string;
    error_message: string;
    error_field?: string;
  };
}

/** A test App with these settings on a fresh testLatchkey(): most capability tests start here. */
export async function appWithSettings(settings: Record<string, unknown> = {}) {
  const { latchkey, clock, sender } = testLatchkey();
  const t = await testApp(latchkey);
  if (Object.keys(settings).length) await latchkey.apps.updateSettings(t.app_id, settings);
  return { t, latchkey, clock, sender };
}

/** The storage, with every repo call it receives recorded as `repo.method`. */
export function countingStorage(inner: Storage) {
  const calls: string[] = [];
  const storage = new Proxy(inner, {
    get(target, repoName, receiver) {
      const repo = Reflect.get(target, repoName, receiver);
      if (typeof repo !== 'object' || repo === null) return repo;
      return new Proxy(repo, {
        get(r, method, rr) {
          const fn = Reflect.get(r, method, rr);
          if (typeof fn !== 'function') return fn;
          return (...args: unknown[]) => {
            calls.push(`${String(repoName)}.${String(method)}`);
            return fn.apply(r, args);
          };
        },
      });
    },
  });
  return { storage, calls, reset: () => void calls.splice(0) };
}
