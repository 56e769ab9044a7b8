import type { AppRecord } from './apps/repo.js';
import { type IdPrefix, newId } from './crypto/ids.js';
import type { KeyedHasher } from './crypto/keyed-hash.js';
import { LatchkeyError } from './errors.js';
import type { ImpliedEvent } from './events/storage-events.js';
import type { Logger } from './logging/logger.js';
import { type Clock, nowSeconds } from './ports/clock.js';
import type { KeyVault } from './ports/key-vault.js';
import type { RandomSource } from './ports/random.js';
import type { RateLimiter } from './ports/rate-limiter.js';
import type { Sender } from './ports/sender.js';
import type { Storage } from './ports/storage.js';
import { expiringReads } from './shared/expiring-reads.js';

/** What every service is built from: the ports, resolved once by `createLatchkey`. */
export interface Kernel {
  storage: Storage;
  clock: Clock;
  random: RandomSource;
  hasher: KeyedHasher;
  vault: KeyVault;
  sender: Sender;
  rateLimiter: RateLimiter;
  /** Where failures no caller is waiting for are reported (`options.logger`, or the console). */
  logger: Logger;
  /**
   * Records an event that no storage write implies (a key export, a disabled endpoint), in
   * `tx` when given; listeners hear of it once that commits. Writes imply the rest by
   * themselves (events/storage-events.ts).
   */
  emit(event: ImpliedEvent, tx?: Storage): Promise<void>;
  /** Unix seconds now. */
  now(): number;
  id(prefix: IdPrefix): string;
  /**
   * The App, cached for a few seconds: settings are read on every request, changed rarely. A
   * change made in another process shows within `APP_CACHE_SECONDS`.
   */
  app(appId: string): Promise<AppRecord>;
  /** Drops the cached App after a change in this process. */
  forgetApp(appId: string): void;
}

export const APP_CACHE_SECONDS = 5;

export function createKernel(ports: Omit<Kernel, 'now' | 'id' | 'app' | 'forgetApp'>): Kernel {
  const now = () => nowSeconds(ports.clock);
  const apps = expiringReads<string, AppRecord>({
    read: async (appId) => {
      const app = await ports.storage.apps.get(appId);
      if (!app) throw new LatchkeyError('app_not_found');
      return app;
    },
    now,
    seconds: APP_CACHE_SECONDS,
  });
  return {
    ...ports,
    now,
    id: (prefix) => newId(prefix, ports.clock, ports.random),
    app: (appId) => apps.get(appId),
    forgetApp: (appId) => apps.forget(appId),
  };
}
