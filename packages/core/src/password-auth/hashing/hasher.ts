import { utf8 } from '../../crypto/encoding.js';
import { LatchkeyError } from '../../errors.js';
import { type RandomSource, systemRandom } from '../../ports/random.js';
import { selectPrimitives } from './engine.js';
import { type Argon2Params, argon2ParamsSchema, OWASP_ARGON2ID, SALT_BYTES, TAG_BYTES } from './params.js';
import type { HashPrimitives } from './primitives.js';
import { boundedQueue } from './queue.js';
import { formatStored, isCurrent, parseStored, type StoredHash } from './stored.js';
import { verifyStored } from './verify-stored.js';

export interface PasswordHasher {
  /** A new Argon2id PHC string at the hasher's parameters, with a fresh 16-byte salt. */
  hash(password: string): Promise<string>;
  /**
   * Whether `password` matches `stored` (any form `storedFromImport` makes, or `hash`'s), in
   * constant time; `needsRehash` is true when it matches but is not Argon2id at the hasher's
   * parameters, so the caller stores `hash(password)` in its place.
   */
  verify(password: string, stored: string): Promise<{ ok: boolean; needsRehash: boolean }>;
  /** The Argon2id costs new hashes get. */
  readonly params: Argon2Params;
  /** Which implementation does the work (see docs/password-hashing.md). */
  readonly engine: string;
  /** Hashes computed at once. */
  readonly threads: number;
  /** Hashes running or queued. */
  readonly pending: number;
  /** Stops the worker threads, if any; later calls start them again. */
  close(): Promise<void>;
}

export interface PasswordHasherOptions {
  /** Argon2id costs for new hashes; OWASP's by default. */
  params?: Argon2Params;
  /** Hashes and verifications that may run or wait at once; more are refused 429. Default 128. */
  maxQueue?: number;
  /** Hashes computed at once (worker threads where there are workers). Default: cores − 1, 1–4. */
  threads?: number;
  /** Salts; the system's generator by default. */
  random?: RandomSource;
  /** The slow functions; found for the runtime by default (tests pass their own). */
  primitives?: HashPrimitives;
}

const DEFAULT_MAX_QUEUE = 128;

/**
 * One fewer than the cores this process may use, 1 to 4: a burst of hashes then leaves a core to
 * the event loop, so session checks keep their pace. Node 20 has no `navigator`: node:os first.
 */
function defaultThreads(): number {
  const g = globalThis as {
    process?: { getBuiltinModule?: (id: string) => unknown };
    navigator?: { hardwareConcurrency?: number };
  };
  let cores: number | undefined;
  try {
    const os = g.process?.getBuiltinModule?.('node:os') as
      | { availableParallelism?: () => number }
      | undefined;
    cores = os?.availableParallelism?.();
  } catch {}
  cores ??= g.navigator?.hardwareConcurrency ?? 1;
  return Math.min(4, Math.max(1, cores - 1));
}

export function createPasswordHasher(options: PasswordHasherOptions = {}): PasswordHasher {
  const params = argon2ParamsSchema.parse(options.params ?? OWASP_ARGON2ID);
  const threads = options.threads ?? defaultThreads();
  const maxQueue = options.maxQueue ?? DEFAULT_MAX_QUEUE;
  if (!Number.isInteger(threads) || threads < 1) throw new TypeError('threads must be a whole number ≥ 1');
  if (!Number.isInteger(maxQueue) || maxQueue < 1) throw new TypeError('maxQueue must be a whole number ≥ 1');
  const random = options.random ?? systemRandom;
  const queue = boundedQueue(threads, maxQueue);
  let primitives: HashPrimitives | undefined = options.primitives;
  const engine = () => (primitives ??= selectPrimitives(threads));

  const read = (stored: string): StoredHash => {
    try {
      return parseStored(stored);
    } catch (cause) {
      // A stored string is Latchkey's own: unreadable means corrupted data, not a bad request.
      throw new LatchkeyError('internal_error', 'A stored password hash is in no form Latchkey reads.', {
        cause,
      });
    }
  };

  return {
    params,
    threads,
    get engine() {
      return engine().name;
    },
    get pending() {
      return queue.pending;
    },
    hash: (password) =>
      queue.run(async () => {
        const salt = random.bytes(SALT_BYTES);
        const tag = await engine().argon2({
          variant: 'argon2id',
          version: 19,
          password: utf8(password),
          salt,
          ...params,
          tagLength: TAG_BYTES,
        });
        return formatStored({ kind: 'argon2', variant: 'argon2id', version: 19, ...params, salt, tag });
      }),
    verify: async (password, stored) => {
      const parsed = read(stored);
      // Legacy digests cost microseconds; they skip the queue (and always ask for a rehash).
      const check = () => verifyStored(engine(), parsed, password);
      const ok = await (parsed.kind === 'salted-digest' ? check() : queue.run(check));
      return { ok, needsRehash: ok && !isCurrent(parsed, params) };
    },
    close: async () => {
      const running = primitives;
      primitives = options.primitives;
      await running?.close();
    },
  };
}

/** A hash no password matches, at each hasher's own parameters, made once for `dummyVerify`. */
const dummies = new WeakMap<PasswordHasher, string>();

/**
 * Costs what a real `verify` costs and answers nothing: called for an email with no password,
 * so "no such user" and "wrong password" take the same time. The dummy is random bytes in
 * Argon2id's form at the hasher's parameters: no hash is computed to make it.
 */
export async function dummyVerify(hasher: PasswordHasher): Promise<void> {
  let stored = dummies.get(hasher);
  if (!stored) {
    const random = (n: number) => crypto.getRandomValues(new Uint8Array(n));
    stored = formatStored({
      kind: 'argon2',
      variant: 'argon2id',
      version: 19,
      ...hasher.params,
      salt: random(SALT_BYTES),
      tag: random(TAG_BYTES),
    });
    dummies.set(hasher, stored);
  }
  await hasher.verify('not the dummy password', stored);
}
