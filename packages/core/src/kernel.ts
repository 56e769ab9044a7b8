import { type IdPrefix, newId } from './crypto/ids.js';
import type { KeyedHasher } from './crypto/keyed-hash.js';
import { type Clock, nowSeconds } from './ports/clock.js';
import type { RandomSource } from './ports/random.js';
import type { Storage } from './ports/storage.js';

/** What every service is built from: the ports, resolved once by `createLatchkey`. */
export interface Kernel {
  storage: Storage;
  clock: Clock;
  random: RandomSource;
  hasher: KeyedHasher;
  /** Unix seconds now. */
  now(): number;
  id(prefix: IdPrefix): string;
}

export function createKernel(ports: {
  storage: Storage;
  clock: Clock;
  random: RandomSource;
  hasher: KeyedHasher;
}): Kernel {
  return {
    ...ports,
    now: () => nowSeconds(ports.clock),
    id: (prefix) => newId(prefix, ports.clock, ports.random),
  };
}
