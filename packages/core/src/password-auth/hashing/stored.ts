import { base64nopad } from '@scure/base';
import { LatchkeyError } from '../../errors.js';
import type { Argon2Params } from './params.js';

/**
 * A password hash as Latchkey keeps it, decoded. Latchkey's own hashes are Argon2id PHC strings;
 * the other kinds come from `storedFromImport` and live only until the user's next sign-in
 * rehashes them.
 */
export type StoredHash =
  | {
      kind: 'argon2';
      variant: 'argon2id' | 'argon2i';
      /** 0x13 (19) or the older 0x10 (16). */
      version: 16 | 19;
      memoryKiB: number;
      iterations: number;
      parallelism: number;
      salt: Uint8Array;
      tag: Uint8Array;
    }
  | { kind: 'bcrypt'; encoded: string; cost: number }
  | {
      /** Better Auth's default: scrypt over the NFKC form, its hex salt text used as the salt. */
      kind: 'better-auth-scrypt';
      logN: number;
      r: number;
      p: number;
      salt: Uint8Array;
      key: Uint8Array;
    }
  | {
      /** Firebase Auth's scrypt: the derived key encrypts the project's signer key (AES-256-CTR). */
      kind: 'firebase-scrypt';
      logN: number;
      r: number;
      salt: Uint8Array;
      separator: Uint8Array;
      signerKey: Uint8Array;
      hash: Uint8Array;
    }
  | {
      /** Django's `pbkdf2_sha256$iterations$salt$hash`; the salt is text, used as its UTF-8. */
      kind: 'pbkdf2';
      digest: 'sha256' | 'sha512';
      iterations: number;
      salt: string;
      key: Uint8Array;
    }
  | {
      /** One unsalted-in-the-algorithm digest over salt and password joined: legacy only. */
      kind: 'salted-digest';
      digest: 'md5' | 'sha1';
      salt: string;
      saltAt: 'start' | 'end';
      hash: Uint8Array;
    };

/**
 * Costs Latchkey agrees to pay for one verification of an imported hash: a stored string that
 * asks for more is refused when imported (and when read back), so a migrated table cannot make
 * one sign-in cost seconds or gigabytes.
 */
export const COST_LIMITS = {
  argon2MemoryKiB: 262_144,
  argon2Iterations: 20,
  argon2Parallelism: 16,
  bcryptCost: 15,
  scryptLogN: 20,
  scryptR: 32,
  scryptP: 16,
  /** 128 · N · r bytes: scrypt's memory. */
  scryptMemoryBytes: 256 * 1024 * 1024,
  pbkdf2Iterations: 5_000_000,
} as const;

/**
 * Refuses a hash with the part at fault (a field of the import request: `hash`, `salt`,
 * `scrypt.signer_key`…), as a 400 `invalid_field` when it reaches a client.
 */
const fail = (message: string, part = 'hash'): never => {
  throw new LatchkeyError('invalid_field', `${part}: ${message}`, { field: part });
};

/** PHC's base64: standard alphabet, no padding. */
export const phcB64 = {
  encode: (bytes: Uint8Array) => base64nopad.encode(bytes),
  decode: (s: string, part: string, what: string): Uint8Array => {
    if (!/^[A-Za-z0-9+/]*$/.test(s))
      fail(`${what} is not base64 (A–Z, a–z, 0–9, + and / without padding)`, part);
    try {
      return base64nopad.decode(s);
    } catch {
      return fail(`${what} is not base64 of whole bytes`, part);
    }
  },
};

const DECIMAL = /^(0|[1-9][0-9]{0,9})$/;

function int(value: string | undefined, name: string, min: number, max: number, part = 'hash'): number {
  if (value === undefined || !DECIMAL.test(value)) return fail(`${name} must be a whole number`, part);
  const n = Number(value);
  if (n < min || n > max) return fail(`${name} must be between ${min} and ${max}, not ${n}`, part);
  return n;
}

/** `a=1,b=2` into its pairs; every name once, only the names allowed. */
function phcParams(text: string, allowed: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of text.split(',')) {
    const eq = pair.indexOf('=');
    const [name, value] = eq < 0 ? [pair, ''] : [pair.slice(0, eq), pair.slice(eq + 1)];
    if (!allowed.includes(name))
      return fail(`unknown parameter "${name.slice(0, 20)}" (expected ${allowed.join(', ')})`);
    if (Object.hasOwn(out, name)) return fail(`parameter ${name} appears twice`);
    out[name] = value;
  }
  return out;
}

function checkScryptCost(logN: number, r: number, p: number, part: string): void {
  if (128 * 2 ** logN * r > COST_LIMITS.scryptMemoryBytes)
    fail(
      `scrypt would need more than ${COST_LIMITS.scryptMemoryBytes / 1024 / 1024} MiB (128 · N · r)`,
      part,
    );
  if (p > COST_LIMITS.scryptP) fail(`scrypt parallelism must be at most ${COST_LIMITS.scryptP}`, part);
}

function parseArgon2(fields: string[]): StoredHash {
  // ['', id, 'v=19', 'm=..,t=..,p=..', salt, tag]; the version field may be absent (0x10).
  const variant = fields[1] as 'argon2id' | 'argon2i';
  const hasVersion = fields[2]?.startsWith('v=') ?? false;
  if (fields.length !== (hasVersion ? 6 : 5))
    return fail(`an ${variant} PHC string has the form $${variant}$v=19$m=…,t=…,p=…$salt$hash`);
  const version = hasVersion ? Number(fields[2]!.slice(2)) : 16;
  if (version !== 16 && version !== 19) return fail('the Argon2 version must be v=19 (or the older v=16)');
  const rest = fields.slice(hasVersion ? 3 : 2);
  const params = phcParams(rest[0]!, ['m', 't', 'p']);
  const parallelism = int(params.p, 'p (parallelism)', 1, COST_LIMITS.argon2Parallelism);
  const memoryKiB = int(params.m, 'm (memory in KiB)', 8 * parallelism, COST_LIMITS.argon2MemoryKiB);
  const iterations = int(params.t, 't (iterations)', 1, COST_LIMITS.argon2Iterations);
  const salt = phcB64.decode(rest[1]!, 'hash', 'the salt');
  const tag = phcB64.decode(rest[2]!, 'hash', 'the hash');
  if (salt.length < 8 || salt.length > 64) fail('the salt must be 8 to 64 bytes');
  if (tag.length < 4 || tag.length > 128) fail('the hash must be 4 to 128 bytes');
  return { kind: 'argon2', variant, version, memoryKiB, iterations, parallelism, salt, tag };
}

const BCRYPT = /^\$2[aby]\$([0-9]{2})\$[./A-Za-z0-9]{53}$/;

export function parseBcrypt(encoded: string): StoredHash {
  const match = BCRYPT.exec(encoded);
  if (!match)
    return fail(
      'a bcrypt hash is 60 characters: $2a$, $2b$ or $2y$, a two-digit cost, $, then 53 of ./A–Z a–z 0–9',
    );
  // Two digits, zero-padded ("06").
  const cost = int(String(Number(match[1])), 'the bcrypt cost', 4, COST_LIMITS.bcryptCost);
  return { kind: 'bcrypt', encoded, cost };
}

function parseScryptLike(fields: string[], kind: 'better-auth-scrypt' | 'firebase-scrypt'): StoredHash {
  if (fields.length !== 5) return fail(`a ${kind} string has the form $${kind}$params$salt$hash`);
  if (kind === 'better-auth-scrypt') {
    const params = phcParams(fields[2]!, ['ln', 'r', 'p']);
    const logN = int(params.ln, 'ln (log2 of N)', 1, COST_LIMITS.scryptLogN);
    const r = int(params.r, 'r', 1, COST_LIMITS.scryptR);
    const p = int(params.p, 'p', 1, COST_LIMITS.scryptP);
    checkScryptCost(logN, r, p, 'hash');
    const salt = phcB64.decode(fields[3]!, 'hash', 'the salt');
    const key = phcB64.decode(fields[4]!, 'hash', 'the hash');
    if (salt.length < 1) fail('the salt is empty');
    if (key.length < 16 || key.length > 128) fail('the hash must be 16 to 128 bytes');
    return { kind, logN, r, p, salt, key };
  }
  const params = phcParams(fields[2]!, ['ln', 'r', 'sep', 'key']);
  const logN = int(params.ln, 'ln (mem_cost)', 1, COST_LIMITS.scryptLogN);
  const r = int(params.r, 'r (rounds)', 1, COST_LIMITS.scryptR);
  checkScryptCost(logN, r, 1, 'hash');
  const separator = phcB64.decode(params.sep ?? '', 'hash', 'the salt separator');
  const signerKey = phcB64.decode(params.key ?? '', 'hash', 'the signer key');
  if (signerKey.length < 1 || signerKey.length > 256) fail('the signer key must be 1 to 256 bytes');
  const salt = phcB64.decode(fields[3]!, 'hash', 'the salt');
  const hash = phcB64.decode(fields[4]!, 'hash', 'the hash');
  if (hash.length !== signerKey.length) fail('the hash must be as long as the signer key it encrypts');
  return { kind, logN, r, salt, separator, signerKey, hash };
}

/** Django's hasher: `pbkdf2_sha256$iterations$salt$base64 hash`. */
export function parseDjangoPbkdf2(encoded: string, part = 'hash'): StoredHash {
  const fields = encoded.split('$');
  const algorithm = fields[0];
  if (fields.length !== 4 || (algorithm !== 'pbkdf2_sha256' && algorithm !== 'pbkdf2_sha512'))
    return fail(
      "a PBKDF2 hash has Django's form: pbkdf2_sha256$iterations$salt$hash (or pbkdf2_sha512)",
      part,
    );
  const digest = algorithm === 'pbkdf2_sha256' ? 'sha256' : 'sha512';
  const iterations = int(fields[1], 'the iteration count', 1, COST_LIMITS.pbkdf2Iterations, part);
  const salt = fields[2]!;
  if (salt.length < 1 || salt.length > 256) fail('the salt must be 1 to 256 characters', part);
  let key: Uint8Array;
  try {
    key = base64Padded(fields[3]!);
  } catch {
    return fail('the hash is not base64', part);
  }
  if (key.length < 16 || key.length > 128) fail('the hash must be 16 to 128 bytes', part);
  return { kind: 'pbkdf2', digest, iterations, salt, key };
}

/** Standard base64, padded or not, or its URL-safe alphabet (exports differ on both). */
export function base64Padded(s: string): Uint8Array {
  const plain = s.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  if (!/^[A-Za-z0-9+/]*$/.test(plain)) throw new Error('not base64');
  return base64nopad.decode(plain);
}

const DIGEST_BYTES = { md5: 16, sha1: 20 } as const;

function parseSaltedDigest(fields: string[]): StoredHash {
  const digest = fields[1] === 'salted-md5' ? 'md5' : 'sha1';
  if (fields.length !== 5) return fail(`a ${fields[1]} string has the form $${fields[1]}$at=start$salt$hash`);
  const params = phcParams(fields[2]!, ['at']);
  if (params.at !== 'start' && params.at !== 'end') return fail('at must be start or end');
  const salt = new TextDecoder('utf-8', { fatal: true }).decode(
    phcB64.decode(fields[3]!, 'hash', 'the salt'),
  );
  if (salt.length < 1) fail('a legacy digest needs its salt');
  const hash = phcB64.decode(fields[4]!, 'hash', 'the hash');
  if (hash.length !== DIGEST_BYTES[digest]) fail(`an ${digest} hash is ${DIGEST_BYTES[digest]} bytes`);
  return { kind: 'salted-digest', digest, salt, saltAt: params.at, hash };
}

/** Reads any stored form; throws a `LatchkeyError` (`invalid_field`) on anything else. */
export function parseStored(stored: string): StoredHash {
  if (stored.length > 2048) return fail('the stored hash is longer than 2048 characters');
  if (stored.startsWith('$2')) return parseBcrypt(stored);
  if (stored.startsWith('pbkdf2_')) return parseDjangoPbkdf2(stored);
  const fields = stored.split('$');
  if (fields[0] !== '') return fail('the stored hash is in no form Latchkey reads');
  switch (fields[1]) {
    case 'argon2id':
    case 'argon2i':
      return parseArgon2(fields);
    case 'better-auth-scrypt':
    case 'firebase-scrypt':
      return parseScryptLike(fields, fields[1]);
    case 'salted-md5':
    case 'salted-sha1':
      return parseSaltedDigest(fields);
    default:
      return fail('the stored hash is in no form Latchkey reads');
  }
}

const utf8Bytes = (s: string) => new TextEncoder().encode(s);

/** The one string for each decoded hash; `parseStored(formatStored(h))` gives `h` back. */
export function formatStored(h: StoredHash): string {
  switch (h.kind) {
    case 'argon2':
      return `$${h.variant}$${h.version === 19 ? 'v=19$' : ''}m=${h.memoryKiB},t=${h.iterations},p=${h.parallelism}$${phcB64.encode(h.salt)}$${phcB64.encode(h.tag)}`;
    case 'bcrypt':
      return h.encoded;
    case 'better-auth-scrypt':
      return `$better-auth-scrypt$ln=${h.logN},r=${h.r},p=${h.p}$${phcB64.encode(h.salt)}$${phcB64.encode(h.key)}`;
    case 'firebase-scrypt':
      return `$firebase-scrypt$ln=${h.logN},r=${h.r},sep=${phcB64.encode(h.separator)},key=${phcB64.encode(h.signerKey)}$${phcB64.encode(h.salt)}$${phcB64.encode(h.hash)}`;
    case 'pbkdf2':
      return `pbkdf2_${h.digest}$${h.iterations}$${h.salt}$${base64nopadded(h.key)}`;
    case 'salted-digest':
      return `$salted-${h.digest}$at=${h.saltAt}$${phcB64.encode(utf8Bytes(h.salt))}$${phcB64.encode(h.hash)}`;
  }
}

/** Django writes padded base64. */
const base64nopadded = (bytes: Uint8Array) => {
  const s = base64nopad.encode(bytes);
  return s + '='.repeat((4 - (s.length % 4)) % 4);
};

/** Whether a stored hash is Latchkey's current kind: Argon2id v19 at exactly these costs. */
export const isCurrent = (h: StoredHash, params: Argon2Params): boolean =>
  h.kind === 'argon2' &&
  h.variant === 'argon2id' &&
  h.version === 19 &&
  h.memoryKiB === params.memoryKiB &&
  h.iterations === params.iterations &&
  h.parallelism === params.parallelism;
