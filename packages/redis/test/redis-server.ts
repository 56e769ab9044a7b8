import { Redis } from 'ioredis';

/** This machine's Redis (CI has one); REDIS_URL points elsewhere. */
export const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

/** Whether a Redis answers at REDIS_URL: without one, the tests that need it skip. */
export async function reachable(): Promise<boolean> {
  const probe = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1000 });
  probe.on('error', () => {});
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}
