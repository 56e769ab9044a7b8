/**
 * The password hasher's own rules: which stored forms ask for a rehash, the clear 400 for every
 * malformed import, the queue's ceiling (429 past it), the event loop staying free while the
 * worker threads hash, and `dummyVerify` paying a real verification's cost.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { LatchkeyError } from '../src/errors.js';
import {
  type Argon2Params,
  COST_LIMITS,
  createPasswordHasher,
  dummyVerify,
  type ImportedHash,
  OWASP_ARGON2ID,
  storedFromImport,
} from '../src/password-auth/hashing/index.js';
import { portablePrimitives } from '../src/password-auth/hashing/portable.js';
import type { HashPrimitives } from '../src/password-auth/hashing/primitives.js';
import { wasmArgon2 } from '../src/password-auth/hashing/wasm.js';

const hasher = createPasswordHasher();
afterAll(() => hasher.close());

const LIGHT: Argon2Params = { memoryKiB: 1024, iterations: 1, parallelism: 1 };

describe('hash and verify', () => {
  it('hashes to an Argon2id PHC string at OWASP costs with a fresh salt each time', async () => {
    const [a, b] = await Promise.all([hasher.hash('same password'), hasher.hash('same password')]);
    expect(a).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(a).not.toBe(b);
    expect(await hasher.verify('same password', a)).toEqual({ ok: true, needsRehash: false });
    expect(await hasher.verify('same passworD', a)).toEqual({ ok: false, needsRehash: false });
    expect(await hasher.verify('', a)).toEqual({ ok: false, needsRehash: false });
  });

  it("uses the runtime's best engine: Node 24.7+'s crypto.argon2, else worker threads", async () => {
    await hasher.hash('warm up');
    const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
    const native = major > 24 || (major === 24 && minor >= 7);
    expect(hasher.engine).toBe(native ? 'node-crypto-argon2' : 'worker-threads-wasm');
  });

  it.runIf(process.platform === 'linux')(
    "lowers the worker threads' priority (nice 10), not the event loop's",
    async () => {
      const pooled = createPasswordHasher({ threads: 2 });
      try {
        await pooled.verify('x', `$2b$04$${'a'.repeat(53)}`); // bcrypt runs on the workers on every Node
        const nice = (stat: string) => Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
        const tasks = readdirSync('/proc/self/task').map((tid) =>
          nice(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')),
        );
        expect(nice(readFileSync('/proc/thread-self/stat', 'utf8'))).toBe(0);
        expect(tasks.filter((n) => n === 10).length).toBeGreaterThanOrEqual(1);
      } finally {
        await pooled.close();
      }
    },
  );

  it('asks for a rehash when the costs differ, either way, and only for a right password', async () => {
    const light = createPasswordHasher({ params: LIGHT });
    try {
      const weak = await light.hash('pw one');
      expect(weak).toContain('$m=1024,t=1,p=1$');
      expect(await hasher.verify('pw one', weak)).toEqual({ ok: true, needsRehash: true });
      expect(await hasher.verify('pw two', weak)).toEqual({ ok: false, needsRehash: false });
      const strong = await hasher.hash('pw one');
      expect(await light.verify('pw one', strong)).toEqual({ ok: true, needsRehash: true });
      expect(await light.verify('pw one', weak)).toEqual({ ok: true, needsRehash: false });
    } finally {
      await light.close();
    }
  });

  it('refuses parameters below RFC 9106 or above the ceilings', () => {
    for (const params of [
      { memoryKiB: 7, iterations: 1, parallelism: 1 },
      { memoryKiB: 16, iterations: 1, parallelism: 4 },
      { memoryKiB: 19456, iterations: 0, parallelism: 1 },
      { memoryKiB: 2_000_000, iterations: 2, parallelism: 1 },
      { memoryKiB: 19456, iterations: 2.5, parallelism: 1 },
    ])
      expect(() => createPasswordHasher({ params })).toThrow();
  });

  it('answers a stored string in no known form with internal_error, not a silent mismatch', async () => {
    const err = await hasher.verify('pw', '$argon2id$garbage').catch((e) => e);
    expect(err).toBeInstanceOf(LatchkeyError);
    expect(err.errorType).toBe('internal_error');
  });
});

describe('storedFromImport refuses every malformed shape with a 400 naming the field', () => {
  const argon = (params: string, salt = 'c29tZXNhbHRzb21lc2FsdA', tag = 'A'.repeat(43)) =>
    `$argon2id$v=19$${params}$${salt}$${tag}`;
  const bcrypt = (prefix: string, cost: string) => `${prefix}${cost}$${'a'.repeat(53)}`;
  const firebase = {
    format: 'firebase' as const,
    signer_key: 'AAAAAAAAAAAAAAAAAAAAAA==',
    rounds: 8,
    mem_cost: 14,
  };
  const cases: Array<[string, unknown, string, RegExp]> = [
    ['no object', null, 'hash', /object/i],
    ['no hash', { hash_type: 'bcrypt' }, 'hash', /./],
    ['an empty hash', { hash: '', hash_type: 'bcrypt' }, 'hash', /./],
    ['an unknown hash_type', { hash: 'x', hash_type: 'sha256' }, 'hash_type', /./],
    ['an unknown field', { hash: 'x', hash_type: 'bcrypt', pepper: 'x' }, 'pepper', /./],
    ['a very long hash', { hash: 'x'.repeat(3000), hash_type: 'bcrypt' }, 'hash', /./],
    [
      'argon2i labelled argon2id',
      { hash: argon('m=19456,t=2,p=1').replace('argon2id', 'argon2i'), hash_type: 'argon2id' },
      'hash',
      /\$argon2id\$/,
    ],
    ['argon2 missing p', { hash: argon('m=19456,t=2'), hash_type: 'argon2id' }, 'hash', /p \(parallelism\)/],
    [
      'argon2 unknown parameter',
      { hash: argon('m=19456,t=2,p=1,x=1'), hash_type: 'argon2id' },
      'hash',
      /unknown parameter/,
    ],
    [
      'argon2 repeated parameter',
      { hash: argon('m=19456,m=19456,t=2,p=1'), hash_type: 'argon2id' },
      'hash',
      /twice/,
    ],
    [
      'argon2 memory over the ceiling',
      { hash: argon(`m=${COST_LIMITS.argon2MemoryKiB + 1},t=2,p=1`), hash_type: 'argon2id' },
      'hash',
      /between/,
    ],
    ['argon2 memory under 8·p', { hash: argon('m=16,t=2,p=4'), hash_type: 'argon2id' }, 'hash', /between/],
    [
      'argon2 iterations not a number',
      { hash: argon('m=19456,t=two,p=1'), hash_type: 'argon2id' },
      'hash',
      /whole number/,
    ],
    [
      'argon2 version 20',
      { hash: argon('m=19456,t=2,p=1').replace('v=19', 'v=20'), hash_type: 'argon2id' },
      'hash',
      /version/,
    ],
    [
      'argon2 salt not base64',
      { hash: argon('m=19456,t=2,p=1', 'not*base64'), hash_type: 'argon2id' },
      'hash',
      /base64/,
    ],
    [
      'argon2 salt too short',
      { hash: argon('m=19456,t=2,p=1', 'c2FsdA'), hash_type: 'argon2id' },
      'hash',
      /salt/,
    ],
    [
      'argon2 fields missing',
      { hash: '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA', hash_type: 'argon2id' },
      'hash',
      /form/,
    ],
    ['bcrypt $2x$', { hash: bcrypt('$2x$', '10'), hash_type: 'bcrypt' }, 'hash', /\$2a\$/],
    [
      'bcrypt too short',
      { hash: bcrypt('$2b$', '10').slice(0, -1), hash_type: 'bcrypt' },
      'hash',
      /60 characters/,
    ],
    [
      'bcrypt cost over the ceiling',
      { hash: bcrypt('$2b$', String(COST_LIMITS.bcryptCost + 1)), hash_type: 'bcrypt' },
      'hash',
      /between 4 and/,
    ],
    ['bcrypt cost 03', { hash: bcrypt('$2b$', '03'), hash_type: 'bcrypt' }, 'hash', /between 4 and/],
    [
      'bcrypt with a salt',
      { hash: bcrypt('$2b$', '10'), hash_type: 'bcrypt', salt: 'x' },
      'salt',
      /does not apply/,
    ],
    [
      'pbkdf2 of the other digest',
      { hash: 'pbkdf2_sha512$1000$salt$AAAAAAAAAAAAAAAAAAAAAA==', hash_type: 'pbkdf2_sha256' },
      'hash',
      /starts pbkdf2_sha256/,
    ],
    [
      'pbkdf2 iterations 0',
      { hash: 'pbkdf2_sha256$0$salt$AAAAAAAAAAAAAAAAAAAAAA==', hash_type: 'pbkdf2_sha256' },
      'hash',
      /between 1 and/,
    ],
    [
      'pbkdf2 iterations over the ceiling',
      {
        hash: `pbkdf2_sha256$${COST_LIMITS.pbkdf2Iterations + 1}$salt$AAAAAAAAAAAAAAAAAAAAAA==`,
        hash_type: 'pbkdf2_sha256',
      },
      'hash',
      /between 1 and/,
    ],
    [
      'pbkdf2 iterations with a sign',
      { hash: 'pbkdf2_sha256$+1000$salt$AAAAAAAAAAAAAAAAAAAAAA==', hash_type: 'pbkdf2_sha256' },
      'hash',
      /whole number/,
    ],
    [
      'pbkdf2 hash not base64',
      { hash: 'pbkdf2_sha256$1000$salt$***', hash_type: 'pbkdf2_sha256' },
      'hash',
      /base64/,
    ],
    [
      'pbkdf2 fields missing',
      { hash: 'pbkdf2_sha256$1000$AAAAAAAAAAAAAAAAAAAAAA==', hash_type: 'pbkdf2_sha256' },
      'hash',
      /Django/,
    ],
    [
      'pbkdf2 empty salt',
      { hash: 'pbkdf2_sha256$1000$$AAAAAAAAAAAAAAAAAAAAAA==', hash_type: 'pbkdf2_sha256' },
      'hash',
      /salt/,
    ],
    ['md5 without a salt', { hash: 'a'.repeat(32), hash_type: 'md5' }, 'salt', /only salted/],
    ['sha1 without a salt', { hash: 'a'.repeat(40), hash_type: 'sha1' }, 'salt', /only salted/],
    ['md5 of the wrong length', { hash: 'a'.repeat(40), hash_type: 'md5', salt: 's' }, 'hash', /32 hex/],
    ['sha1 not hex', { hash: 'g'.repeat(40), hash_type: 'sha1', salt: 's' }, 'hash', /40 hex/],
    [
      'md5 with a bad salt position',
      { hash: 'a'.repeat(32), hash_type: 'md5', salt: 's', salt_position: 'middle' },
      'salt_position',
      /./,
    ],
    [
      'sha1 with scrypt parameters',
      { hash: 'a'.repeat(40), hash_type: 'sha1', salt: 's', scrypt: firebase },
      'scrypt',
      /does not apply/,
    ],
    ['scrypt not salt:key', { hash: 'abcdef', hash_type: 'scrypt' }, 'hash', /salt:key/],
    ['scrypt odd hex key', { hash: 'abcd:abc', hash_type: 'scrypt' }, 'hash', /salt:key/],
    [
      'scrypt N not a power of two',
      { hash: `abcd:${'a'.repeat(64)}`, hash_type: 'scrypt', scrypt: { format: 'better_auth', n: 1000 } },
      'scrypt.n',
      /power of two/,
    ],
    [
      'scrypt memory over the ceiling',
      {
        hash: `abcd:${'a'.repeat(64)}`,
        hash_type: 'scrypt',
        scrypt: { format: 'better_auth', n: 2 ** 20, r: 32 },
      },
      'hash',
      /MiB/,
    ],
    [
      'scrypt unknown format',
      { hash: `abcd:${'a'.repeat(64)}`, hash_type: 'scrypt', scrypt: { format: 'django' } },
      'scrypt.format',
      /./,
    ],
    [
      'firebase without a salt',
      { hash: 'AAAAAAAAAAAAAAAAAAAAAA==', hash_type: 'scrypt', scrypt: firebase },
      'salt',
      /required/,
    ],
    [
      'firebase signer key not base64',
      {
        hash: 'AAAAAAAAAAAAAAAAAAAAAA==',
        hash_type: 'scrypt',
        salt: 'AAAA',
        scrypt: { ...firebase, signer_key: '***' },
      },
      'scrypt.signer_key',
      /base64/,
    ],
    [
      'firebase salt not base64',
      { hash: 'AAAAAAAAAAAAAAAAAAAAAA==', hash_type: 'scrypt', salt: '%%%', scrypt: firebase },
      'salt',
      /base64/,
    ],
    [
      'firebase mem_cost 25',
      {
        hash: 'AAAAAAAAAAAAAAAAAAAAAA==',
        hash_type: 'scrypt',
        salt: 'AAAA',
        scrypt: { ...firebase, mem_cost: 25 },
      },
      'scrypt.mem_cost',
      /./,
    ],
    [
      'firebase rounds missing',
      {
        hash: 'AAAAAAAAAAAAAAAAAAAAAA==',
        hash_type: 'scrypt',
        salt: 'AAAA',
        scrypt: { ...firebase, rounds: undefined },
      },
      'scrypt.rounds',
      /./,
    ],
    [
      'firebase hash of another length',
      { hash: 'AAAAAAAAAAAA', hash_type: 'scrypt', salt: 'AAAA', scrypt: firebase },
      'hash',
      /as long as the signer key/,
    ],
  ];

  for (const [title, input, field, message] of cases)
    it(title, () => {
      let thrown: unknown;
      try {
        storedFromImport(input as ImportedHash);
      } catch (e) {
        thrown = e;
      }
      expect(thrown, title).toBeInstanceOf(LatchkeyError);
      const err = thrown as LatchkeyError;
      expect(err.errorType).toBe('invalid_field');
      expect(err.status).toBe(400);
      expect(err.field).toBe(field);
      expect(err.message.startsWith(`${field}: `)).toBe(true);
      expect(err.message).toMatch(message);
    });

  it('never echoes the hash it refuses', () => {
    const secret = `$2b$10$${'S3cr3tHashBytes'.repeat(4).slice(0, 52)}`;
    const err = (() => {
      try {
        storedFromImport({ hash: secret, hash_type: 'bcrypt' });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err?.message).not.toContain('S3cr3tHashBytes');
  });
});

describe('the bounded queue', () => {
  it('refuses past maxQueue with a 429 rate_limited and Retry-After, and serves the rest', async () => {
    const small = createPasswordHasher({ params: LIGHT, threads: 1, maxQueue: 3 });
    try {
      const results = await Promise.allSettled(Array.from({ length: 7 }, (_, i) => small.hash(`pw ${i}`)));
      const refused = results
        .filter((r) => r.status === 'rejected')
        .map((r) => (r as PromiseRejectedResult).reason);
      expect(refused).toHaveLength(4);
      for (const err of refused) {
        expect(err).toBeInstanceOf(LatchkeyError);
        expect(err).toMatchObject({ errorType: 'rate_limited', status: 429, retryAfter: 1 });
      }
      const hashes = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      expect(hashes).toHaveLength(3);
      expect((await small.verify('pw 0', hashes[0]!)).ok).toBe(true);
      // Verifications count too; once the burst is over the queue takes work again.
      expect(small.pending).toBe(0);
      const again = await Promise.allSettled(
        Array.from({ length: 5 }, () => small.verify('pw 0', hashes[0]!)),
      );
      expect(again.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    } finally {
      await small.close();
    }
  });

  it('a failing task frees its slot', async () => {
    const failing: HashPrimitives = {
      ...portablePrimitives,
      argon2: () => {
        throw new Error('boom');
      },
    };
    const small = createPasswordHasher({ threads: 1, maxQueue: 1, primitives: failing });
    await expect(small.hash('a')).rejects.toThrow('boom');
    await expect(small.hash('b')).rejects.toThrow('boom');
    expect(small.pending).toBe(0);
  });
});

/**
 * How many 1 ms timers fire per second while `work` runs: a free event loop fires hundreds, one
 * that computes Argon2 on its own thread fires about one per hash.
 */
async function timerRate(work: () => Promise<unknown>): Promise<number> {
  let ticks = 0;
  let running = true;
  const tick = () => {
    ticks++;
    if (running) setTimeout(tick, 1);
  };
  setTimeout(tick, 1);
  const start = performance.now();
  await work();
  const seconds = (performance.now() - start) / 1000;
  running = false;
  return ticks / seconds;
}

describe('the event loop while hashing', () => {
  it('keeps firing timers during a burst on the worker threads, unlike hashing on the main thread', async () => {
    const burst = (h: ReturnType<typeof createPasswordHasher>) => () =>
      Promise.all(Array.from({ length: 12 }, (_, i) => h.hash(`burst ${i}`)));
    const pooled = createPasswordHasher({ threads: 2 });
    const inThread = createPasswordHasher({
      threads: 2,
      primitives: { ...portablePrimitives, name: 'wasm-in-thread', argon2: wasmArgon2 },
    });
    try {
      await pooled.hash('warm up');
      await inThread.hash('warm up');
      const idle = await timerRate(() => new Promise((r) => setTimeout(r, 300)));
      const onWorkers = await timerRate(burst(pooled));
      const onMain = await timerRate(burst(inThread));
      console.log(
        `timer rate /s: idle ${idle.toFixed(0)}, burst on workers ${onWorkers.toFixed(0)}, burst on the main thread ${onMain.toFixed(0)}`,
      );
      expect(pooled.engine).not.toBe('wasm-in-thread');
      expect(onWorkers).toBeGreaterThan(5 * onMain);
    } finally {
      await pooled.close();
    }
  });
});

describe('dummyVerify', () => {
  it("computes one Argon2id at the hasher's own costs, as a real verify does, and never throws", async () => {
    const calls: Array<{ memoryKiB: number; iterations: number; parallelism: number }> = [];
    const counting: HashPrimitives = {
      ...portablePrimitives,
      argon2: (input) => {
        calls.push({
          memoryKiB: input.memoryKiB,
          iterations: input.iterations,
          parallelism: input.parallelism,
        });
        return portablePrimitives.argon2(input);
      },
    };
    const params = { memoryKiB: 2048, iterations: 3, parallelism: 2 };
    const h = createPasswordHasher({ params, primitives: counting });
    const real = await h.hash('pw');
    calls.length = 0;
    await h.verify('wrong', real);
    await dummyVerify(h);
    await dummyVerify(h);
    expect(calls).toEqual([params, params, params]);
    expect(OWASP_ARGON2ID).toEqual({ memoryKiB: 19456, iterations: 2, parallelism: 1 });
  });
});

describe('runtimes without Node or WebAssembly (as workerd)', () => {
  it('falls back to noble on this thread, and its hashes verify anywhere', async () => {
    const saved = {
      getBuiltinModule: process.getBuiltinModule,
      instantiate: WebAssembly.instantiate,
      compile: WebAssembly.compile,
      Module: WebAssembly.Module,
    };
    const refuse = () => {
      throw new WebAssembly.CompileError('Wasm code generation disallowed by embedder');
    };
    let stored: string;
    let engine: string;
    try {
      (process as { getBuiltinModule?: unknown }).getBuiltinModule = undefined;
      Object.assign(WebAssembly, { instantiate: refuse, compile: refuse, Module: refuse });
      const edge = createPasswordHasher({ params: LIGHT });
      stored = await edge.hash('edge password');
      expect((await edge.verify('edge password', stored)).ok).toBe(true);
      expect(
        (await edge.verify('pw', storedFromImport({ hash: `$2b$04$${'a'.repeat(53)}`, hash_type: 'bcrypt' })))
          .ok,
      ).toBe(false);
      engine = edge.engine;
    } finally {
      process.getBuiltinModule = saved.getBuiltinModule;
      Object.assign(WebAssembly, {
        instantiate: saved.instantiate,
        compile: saved.compile,
        Module: saved.Module,
      });
    }
    expect(engine).toBe('portable-js');
    const node = createPasswordHasher({ params: LIGHT });
    expect(await node.verify('edge password', stored)).toEqual({ ok: true, needsRehash: false });
    await node.close();
  });
});
