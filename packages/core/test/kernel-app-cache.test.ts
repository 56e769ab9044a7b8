import { memoryStorage } from '@latchkey/memory';
import { describe, expect, it, vi } from 'vitest';
import { appService } from '../src/apps/service.js';
import { keyedHasher } from '../src/crypto/keyed-hash.js';
import { APP_CACHE_SECONDS, createKernel, type Kernel } from '../src/kernel.js';
import { systemRandom } from '../src/ports/random.js';
import { manualClock, TEST_SECRET } from './helpers.js';

/** A kernel on memory storage whose App reads are counted. */
function countedKernel() {
  const clock = manualClock();
  const storage = memoryStorage();
  const get = vi.spyOn(storage.apps, 'get');
  const k = createKernel({
    storage,
    clock,
    random: systemRandom,
    hasher: keyedHasher(TEST_SECRET),
    vault: {} as Kernel['vault'],
    sender: {} as Kernel['sender'],
    rateLimiter: {} as Kernel['rateLimiter'],
    logger: {} as Kernel['logger'],
    emit: async () => {},
  });
  return { k, storage, get, clock };
}

async function anApp(k: Kernel) {
  return (await appService(k).create({ name: 'cached' })).app_id;
}

describe("the kernel's App cache", () => {
  it('shares one read among the calls in flight, and reads again once the entry expires', async () => {
    const { k, get, clock } = countedKernel();
    const appId = await anApp(k);
    const apps = await Promise.all(Array.from({ length: 50 }, () => k.app(appId)));
    expect(new Set(apps.map((a) => a.id))).toEqual(new Set([appId]));
    expect(get).toHaveBeenCalledTimes(1);
    await k.app(appId);
    expect(get).toHaveBeenCalledTimes(1);
    clock.advance(APP_CACHE_SECONDS);
    await Promise.all([k.app(appId), k.app(appId)]);
    expect(get).toHaveBeenCalledTimes(2);
  });

  it('does not remember a failed read: an unknown App is asked for again', async () => {
    const { k, get } = countedKernel();
    await expect(k.app('app_missing')).rejects.toMatchObject({ errorType: 'app_not_found' });
    await expect(k.app('app_missing')).rejects.toMatchObject({ errorType: 'app_not_found' });
    expect(get).toHaveBeenCalledTimes(2);
  });

  it('forgets an App on request, so a change made here shows at once', async () => {
    const { k, get } = countedKernel();
    const appId = await anApp(k);
    await k.app(appId);
    k.forgetApp(appId);
    await k.app(appId);
    expect(get).toHaveBeenCalledTimes(2);
  });
});
