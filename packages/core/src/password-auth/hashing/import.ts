import { z } from '@hono/zod-openapi';
import { hexToBytes } from '@noble/hashes/utils.js';
import { LatchkeyError } from '../../errors.js';
import {
  base64Padded,
  formatStored,
  parseBcrypt,
  parseDjangoPbkdf2,
  parseStored,
  type StoredHash,
} from './stored.js';

/** The hash formats `storedFromImport` takes, as `hash_type`. */
export const HASH_TYPES = [
  'argon2id',
  'argon2i',
  'bcrypt',
  'scrypt',
  'pbkdf2_sha256',
  'pbkdf2_sha512',
  'md5',
  'sha1',
] as const;

export type HashType = (typeof HASH_TYPES)[number];

const base64Text = (description: string) => z.string().min(1).max(1024).openapi({ description });

/** Better Auth's defaults (`@better-auth/utils/password`): N 16384, r 16, p 1. */
const betterAuthScryptSchema = z.strictObject({
  format: z.literal('better_auth'),
  n: z
    .int()
    .min(2)
    .max(1_048_576)
    .optional()
    .openapi({ description: 'scrypt N, a power of two. Default 16384.' }),
  r: z.int().min(1).max(32).optional().openapi({ description: 'scrypt r. Default 16.' }),
  p: z.int().min(1).max(16).optional().openapi({ description: 'scrypt p. Default 1.' }),
});

/** Firebase Auth's project hash parameters (console: Users › Password hash parameters). */
const firebaseScryptSchema = z.strictObject({
  format: z.literal('firebase'),
  signer_key: base64Text("The project's base64_signer_key."),
  salt_separator: z
    .string()
    .max(1024)
    .optional()
    .openapi({ description: "The project's base64_salt_separator. Default Bw==." }),
  rounds: z.int().min(1).max(32).openapi({ description: "The project's rounds (scrypt r), e.g. 8." }),
  mem_cost: z
    .int()
    .min(1)
    .max(20)
    .openapi({ description: "The project's mem_cost (N = 2^mem_cost), e.g. 14." }),
});

export const importedHashSchema = z
  .strictObject({
    hash: z.string().min(1).max(2048).openapi({
      description:
        "The hash as the old system stored it: a PHC string for argon2id/argon2i, $2a$/$2b$/$2y$ for bcrypt, Better Auth's \"salt:key\" or Firebase's base64 hash for scrypt, Django's pbkdf2_sha256$iterations$salt$hash for PBKDF2, hex for md5 and sha1.",
    }),
    hash_type: z.enum(HASH_TYPES).openapi({ description: 'The algorithm that made `hash`.' }),
    salt: z.string().min(1).max(1024).optional().openapi({
      description:
        "md5 and sha1 (required): the salt as text. scrypt with format firebase (required): the user's base64 salt.",
    }),
    salt_position: z.enum(['prefix', 'suffix']).optional().openapi({
      description: 'md5 and sha1: whether the salt came before (prefix, the default) or after the password.',
    }),
    scrypt: z
      .discriminatedUnion('format', [betterAuthScryptSchema, firebaseScryptSchema])
      .optional()
      .openapi({ description: "scrypt's parameters. Default: Better Auth's ({ format: 'better_auth' })." }),
  })
  .openapi('ImportedPasswordHash');

export type ImportedHash = z.infer<typeof importedHashSchema>;

const invalid = (field: string, message: string): never => {
  throw new LatchkeyError('invalid_field', `${field}: ${message}`, { field });
};

function decodeBase64(value: string, field: string): Uint8Array {
  try {
    return base64Padded(value);
  } catch {
    return invalid(field, 'is not base64');
  }
}

function onlyFor(input: ImportedHash, allowed: Array<'salt' | 'salt_position' | 'scrypt'>): void {
  for (const field of ['salt', 'salt_position', 'scrypt'] as const)
    if (input[field] !== undefined && !allowed.includes(field))
      invalid(field, `does not apply to hash_type ${input.hash_type}`);
}

function fromImport(input: ImportedHash): StoredHash {
  const { hash } = input;
  switch (input.hash_type) {
    case 'argon2id':
    case 'argon2i': {
      onlyFor(input, []);
      if (!hash.startsWith(`$${input.hash_type}$`))
        invalid('hash', `an ${input.hash_type} hash is a PHC string starting $${input.hash_type}$`);
      return parseStored(hash);
    }
    case 'bcrypt':
      onlyFor(input, []);
      return parseBcrypt(hash);
    case 'pbkdf2_sha256':
    case 'pbkdf2_sha512': {
      onlyFor(input, []);
      const parsed = parseDjangoPbkdf2(hash);
      if (!hash.startsWith(`${input.hash_type}$`))
        invalid('hash', `a ${input.hash_type} hash starts ${input.hash_type}$`);
      return parsed;
    }
    case 'md5':
    case 'sha1': {
      onlyFor(input, ['salt', 'salt_position']);
      // Unsalted digests are refused outright: one table lookup reverses most of them.
      if (input.salt === undefined)
        return invalid('salt', `is required: Latchkey imports ${input.hash_type} only salted`);
      const bytes = input.hash_type === 'md5' ? 16 : 20;
      if (!new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`).test(hash))
        invalid('hash', `an ${input.hash_type} hash is ${bytes * 2} hex digits`);
      return {
        kind: 'salted-digest',
        digest: input.hash_type,
        salt: input.salt,
        saltAt: input.salt_position === 'suffix' ? 'end' : 'start',
        hash: hexToBytes(hash.toLowerCase()),
      };
    }
    case 'scrypt': {
      const config = input.scrypt ?? { format: 'better_auth' as const };
      if (config.format === 'better_auth') {
        onlyFor(input, ['scrypt']);
        const match = /^([0-9a-fA-F]+):([0-9a-fA-F]+)$/.exec(hash);
        if (!match || match[2]!.length % 2 !== 0)
          return invalid('hash', 'a Better Auth scrypt hash is "salt:key", both in hex');
        const n = config.n ?? 16384;
        if (!Number.isInteger(Math.log2(n))) invalid('scrypt.n', 'must be a power of two');
        // Better Auth passes its hex salt text itself to scrypt, not the bytes it spells.
        return {
          kind: 'better-auth-scrypt',
          logN: Math.log2(n),
          r: config.r ?? 16,
          p: config.p ?? 1,
          salt: new TextEncoder().encode(match[1]!),
          key: hexToBytes(match[2]!.toLowerCase()),
        };
      }
      onlyFor(input, ['salt', 'scrypt']);
      if (input.salt === undefined)
        return invalid('salt', "is required: the user's base64 salt from the Firebase export");
      return {
        kind: 'firebase-scrypt',
        logN: config.mem_cost,
        r: config.rounds,
        salt: decodeBase64(input.salt, 'salt'),
        separator: decodeBase64(config.salt_separator ?? 'Bw==', 'scrypt.salt_separator'),
        signerKey: decodeBase64(config.signer_key, 'scrypt.signer_key'),
        hash: decodeBase64(hash, 'hash'),
      };
    }
  }
}

/**
 * The stored string for an imported hash, which `PasswordHasher.verify` accepts (and always
 * asks to rehash). Throws `LatchkeyError` `invalid_field`, naming the field, when the hash or its
 * parameters are malformed or cost more than `COST_LIMITS`.
 */
export function storedFromImport(input: ImportedHash): string {
  const parsed = importedHashSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    // An unknown field is named by its key; a wrong root (not an object) blames `hash`.
    const unknown = issue.code === 'unrecognized_keys' ? issue.keys[0] : undefined;
    const field = [...issue.path, ...(unknown === undefined ? [] : [unknown])].join('.') || 'hash';
    return invalid(field, issue.message);
  }
  const stored = formatStored(fromImport(parsed.data));
  // Read back through the one parser verify() uses: the costs and lengths are checked there.
  parseStored(stored);
  return stored;
}
