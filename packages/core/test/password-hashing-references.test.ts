/**
 * Password hashes made by other programs verify with Latchkey's hasher, and Latchkey's own
 * Argon2id hashes verify with the reference `argon2` command: the Debian `argon2` CLI (the
 * reference C implementation), Apache's `htpasswd -B` (bcrypt), Better Auth's own
 * `hashPassword` (its npm package), Python's `hashlib` (Django-style PBKDF2, salted md5/sha1) and
 * Firebase's published scrypt example. Each also fails for a wrong password.
 */
import { execFileSync } from 'node:child_process';
import { hashPassword as betterAuthHash } from 'better-auth/crypto';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createPasswordHasher,
  type ImportedHash,
  OWASP_ARGON2ID,
  storedFromImport,
} from '../src/password-auth/hashing/index.js';

const hasher = createPasswordHasher();
afterAll(() => hasher.close());

const run = (command: string, args: string[], input?: string) =>
  execFileSync(command, args, { input, encoding: 'utf8' }).trim();

const python = (script: string, ...args: string[]) => run('python3', ['-c', script, ...args]);

/** Imports `input`, then checks the right password, a wrong one and a near miss. */
async function verifiesOnlyItsPassword(input: ImportedHash, password: string) {
  const stored = storedFromImport(input);
  expect(await hasher.verify(password, stored)).toEqual({ ok: true, needsRehash: true });
  expect((await hasher.verify(`${password}!`, stored)).ok).toBe(false);
  expect((await hasher.verify(password.slice(0, -1), stored)).ok).toBe(false);
  return stored;
}

describe('the reference argon2 command', () => {
  it('its Argon2id at OWASP costs verifies, and needs no rehash', async () => {
    const encoded = run(
      'argon2',
      ['somesaltsomesalt', '-id', '-t', '2', '-k', '19456', '-p', '1', '-e'],
      'correct horse',
    );
    expect(encoded).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    const stored = storedFromImport({ hash: encoded, hash_type: 'argon2id' });
    expect(stored).toBe(encoded);
    expect(await hasher.verify('correct horse', stored)).toEqual({ ok: true, needsRehash: false });
    expect((await hasher.verify('correct horsf', stored)).ok).toBe(false);
  });

  it('its Argon2id at other costs, its Argon2i and its version 0x10 verify and ask for a rehash', async () => {
    const cases = [
      ['-id', '-t', '3', '-m', '12', '-p', '2'],
      ['-i', '-t', '2', '-k', '8192', '-p', '1'],
      ['-id', '-t', '2', '-m', '10', '-p', '1', '-v', '10'],
      ['-id', '-t', '1', '-m', '10', '-p', '1', '-l', '64'],
    ];
    for (const flags of cases) {
      const encoded = run('argon2', ['another-salt-16b', ...flags, '-e'], 'pässwörd ✓');
      const type = flags[0] === '-i' ? 'argon2i' : 'argon2id';
      await verifiesOnlyItsPassword({ hash: encoded, hash_type: type }, 'pässwörd ✓');
    }
  });

  it("Latchkey's own hash is what the reference command computes for its salt and costs", async () => {
    // Printable salt bytes, so the command can take the salt as its argument.
    const letters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
    const random = {
      bytes: (n: number) =>
        new TextEncoder().encode(
          Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => letters[b % letters.length]).join(''),
        ),
    };
    const own = createPasswordHasher({ random });
    try {
      const stored = await own.hash('Tr0ub4dor&3 ünïcode');
      const [, , , , saltB64] = stored.split('$');
      const salt = Buffer.from(saltB64!, 'base64').toString('latin1');
      const { memoryKiB, iterations, parallelism } = OWASP_ARGON2ID;
      const reference = run(
        'argon2',
        [salt, '-id', '-t', String(iterations), '-k', String(memoryKiB), '-p', String(parallelism), '-e'],
        'Tr0ub4dor&3 ünïcode',
      );
      expect(stored).toBe(reference);
      // A different password gives the command another hash.
      expect(
        run('argon2', [salt, '-id', '-t', '2', '-k', '19456', '-p', '1', '-e'], 'Tr0ub4dor&4 ünïcode'),
      ).not.toBe(stored);
    } finally {
      await own.close();
    }
  });
});

describe('htpasswd -B (bcrypt)', () => {
  it('$2y$ from htpasswd, and the same hash as $2a$ and $2b$, verify', async () => {
    const line = run('htpasswd', ['-nbB', '-C', '6', 'user', 'open sesame']);
    const hash = line.slice('user:'.length);
    expect(hash).toMatch(/^\$2y\$06\$/);
    for (const prefix of ['$2y$', '$2a$', '$2b$'])
      await verifiesOnlyItsPassword({ hash: prefix + hash.slice(4), hash_type: 'bcrypt' }, 'open sesame');
  });
});

describe("Better Auth's scrypt", () => {
  it("hashPassword's output verifies, NFKC forms included", async () => {
    const hash = await betterAuthHash('better auth pass');
    await verifiesOnlyItsPassword({ hash, hash_type: 'scrypt' }, 'better auth pass');
    await verifiesOnlyItsPassword(
      { hash, hash_type: 'scrypt', scrypt: { format: 'better_auth' } },
      'better auth pass',
    );
    // Better Auth hashes the NFKC form: the decomposed é signs in as the composed one.
    const accented = await betterAuthHash('caf\u00e9 au lait');
    const stored = storedFromImport({ hash: accented, hash_type: 'scrypt' });
    expect((await hasher.verify('cafe\u0301 au lait', stored)).ok).toBe(true);
    expect((await hasher.verify('cafe au lait', stored)).ok).toBe(false);
  });
});

describe("Firebase's scrypt", () => {
  it("the example in Firebase's scrypt README verifies", async () => {
    await verifiesOnlyItsPassword(
      {
        hash: 'lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==',
        hash_type: 'scrypt',
        salt: '42xEC+ixf3L2lw==',
        scrypt: {
          format: 'firebase',
          signer_key:
            'jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==',
          salt_separator: 'Bw==',
          rounds: 8,
          mem_cost: 14,
        },
      },
      'user1password',
    );
  });
});

describe("Python's hashlib", () => {
  const django = `
import base64, hashlib, sys
algorithm, iterations, salt, password = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
key = hashlib.pbkdf2_hmac(algorithm.split('_')[1], password.encode(), salt.encode(), iterations)
print('%s$%d$%s$%s' % (algorithm, iterations, salt, base64.b64encode(key).decode()))
`;

  it('Django-style pbkdf2_sha256 and pbkdf2_sha512 verify', async () => {
    for (const algorithm of ['pbkdf2_sha256', 'pbkdf2_sha512'] as const) {
      const hash = python(django, algorithm, '12000', 'Zx9sAltyS4lt', 'django pässword');
      expect(hash.startsWith(`${algorithm}$12000$Zx9sAltyS4lt$`)).toBe(true);
      const stored = await verifiesOnlyItsPassword({ hash, hash_type: algorithm }, 'django pässword');
      expect(stored).toBe(hash);
    }
  });

  it('salted md5 and sha1, salt before or after, verify; always legacy', async () => {
    const digest = `
import hashlib, sys
print(hashlib.new(sys.argv[1], sys.argv[2].encode()).hexdigest())
`;
    for (const type of ['md5', 'sha1'] as const) {
      const before = python(digest, type, 'pepper!' + 'old password');
      await verifiesOnlyItsPassword({ hash: before, hash_type: type, salt: 'pepper!' }, 'old password');
      await verifiesOnlyItsPassword(
        { hash: before.toUpperCase(), hash_type: type, salt: 'pepper!', salt_position: 'prefix' },
        'old password',
      );
      const after = python(digest, type, 'old password' + 'pepper!');
      await verifiesOnlyItsPassword(
        { hash: after, hash_type: type, salt: 'pepper!', salt_position: 'suffix' },
        'old password',
      );
      // The salt on the wrong side is another hash.
      const wrongSide = storedFromImport({ hash: after, hash_type: type, salt: 'pepper!' });
      expect((await hasher.verify('old password', wrongSide)).ok).toBe(false);
    }
  });
});
