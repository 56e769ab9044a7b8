import { createDecipheriv, randomBytes } from 'node:crypto';
import { generateVaultKey, LatchkeyError, localKeyVault, sealedKeyVersion } from '@latchkey/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeBase64Url } from '../src/vault/base64url.js';

const text = (s: string) => new TextEncoder().encode(s);
const str = (b: Uint8Array) => new TextDecoder().decode(b);

const KEY_1 = generateVaultKey();
const KEY_2 = generateVaultKey();
const CONTEXT = 'app_01/user_01/seed';

async function expectVaultError(promise: Promise<unknown>, errorType: string) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LatchkeyError);
  expect((error as LatchkeyError).errorType).toBe(errorType);
  expect((error as LatchkeyError).status).toBe(500);
}

// The vault seals and opens on the runtime's node:crypto where it has one, on Web Crypto
// elsewhere: every case runs on both, and a blob made by one opens with the other.
const getBuiltinModule = process.getBuiltinModule;
const withoutNodeCrypto = () => {
  (process as { getBuiltinModule?: unknown }).getBuiltinModule = undefined;
};
const restoreNodeCrypto = () => {
  process.getBuiltinModule = getBuiltinModule;
};

describe('localKeyVault: node:crypto and Web Crypto make and open the same blobs', () => {
  afterEach(restoreNodeCrypto);

  it('opens with either what the other sealed, and refuses the same tampering', async () => {
    const onNode = localKeyVault({ keys: { 1: KEY_1 }, current: 1 });
    withoutNodeCrypto();
    const onWebCrypto = localKeyVault({ keys: { 1: KEY_1 }, current: 1 });
    restoreNodeCrypto();
    for (const [from, to] of [
      [onNode, onWebCrypto],
      [onWebCrypto, onNode],
    ] as const) {
      const sealed = await from.seal(text('either way'), CONTEXT);
      expect(str(await to.open(sealed, CONTEXT))).toBe('either way');
      await expectVaultError(to.open(sealed, 'another context'), 'vault_open_failed');
      const flipped = sealed.slice(0, -2) + (sealed.at(-2) === 'A' ? 'B' : 'A') + sealed.at(-1);
      await expectVaultError(to.open(flipped, CONTEXT), 'vault_open_failed');
    }
  });
});

describe.each(['node:crypto', 'Web Crypto'])('localKeyVault on %s', (engine) => {
  beforeEach(() => {
    if (engine === 'Web Crypto') withoutNodeCrypto();
  });
  afterEach(restoreNodeCrypto);

  it('opens what it sealed, for plaintexts of any length', async () => {
    const vault = localKeyVault({ keys: { 1: KEY_1 }, current: 1 });
    for (const length of [0, 1, 15, 16, 17, 32, 64, 1000]) {
      const plaintext = crypto.getRandomValues(new Uint8Array(length));
      const opened = await vault.open(await vault.seal(plaintext, CONTEXT), CONTEXT);
      expect(opened).toEqual(plaintext);
    }
  });

  it('writes the documented self-describing format', async () => {
    const vault = localKeyVault({ keys: { 7: KEY_1 }, current: 7 });
    const sealed = await vault.seal(text('hello'), CONTEXT);
    expect(sealed).toMatch(
      /^lkv1\.7\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{64}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/,
    );
    expect(sealedKeyVersion(sealed)).toBe(7);
  });

  it('binds the context: a blob sealed for one context does not open for another', async () => {
    const vault = localKeyVault({ keys: { 1: KEY_1 }, current: 1 });
    const sealed = await vault.seal(text('seed words'), 'app_A/user_1');
    await expectVaultError(vault.open(sealed, 'app_B/user_1'), 'vault_open_failed');
    await expectVaultError(vault.open(sealed, 'app_A/user_1 '), 'vault_open_failed');
    await expectVaultError(vault.open(sealed, ''), 'vault_open_failed');
    expect(str(await vault.open(sealed, 'app_A/user_1'))).toBe('seed words');
  });

  it('refuses a blob with any single character changed', async () => {
    const vault = localKeyVault({ keys: { 1: KEY_1, 2: KEY_2 }, current: 1 });
    const sealed = await vault.seal(text('secret'), CONTEXT);
    for (let i = 0; i < sealed.length; i++) {
      const original = sealed[i]!;
      // Flip to a different character of the same alphabet, so the change is not caught by a
      // mere charset check; the last character's unused low bits must matter too.
      const replacement = original === 'A' ? 'B' : original === '.' ? '_' : 'A';
      const tampered = sealed.slice(0, i) + replacement + sealed.slice(i + 1);
      const error = await vault.open(tampered, CONTEXT).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, `character ${i} changed`).toBeInstanceOf(LatchkeyError);
      expect(['vault_open_failed', 'vault_key_missing']).toContain((error as LatchkeyError).errorType);
    }
  });

  it('refuses a non-canonical spelling of the same bytes (the unused low bits of a last character)', async () => {
    const vault = localKeyVault({ keys: { 1: KEY_1 }, current: 1 });
    // 6 plaintext bytes + 16 tag bytes = 22 bytes: the last base64url character carries 2 bits.
    const sealed = await vault.seal(text('secret'), CONTEXT);
    const ciphertext = sealed.slice(sealed.lastIndexOf('.') + 1);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sameBytes = [...alphabet]
      .map((c) => ciphertext.slice(0, -1) + c)
      .filter(
        (c) => c !== ciphertext && Buffer.from(c, 'base64url').equals(Buffer.from(ciphertext, 'base64url')),
      );
    expect(sameBytes.length).toBeGreaterThan(0);
    for (const variant of sameBytes) {
      await expectVaultError(
        vault.open(sealed.slice(0, -ciphertext.length) + variant, CONTEXT),
        'vault_open_failed',
      );
    }
  });

  it('refuses a blob with any single bit of a decoded part flipped', async () => {
    const vault = localKeyVault({ keys: { 1: KEY_1 }, current: 1 });
    const sealed = await vault.seal(text('secret'), CONTEXT);
    const [prefix, version, ...parts] = sealed.split('.');
    for (let p = 0; p < parts.length; p++) {
      const bytes = Buffer.from(parts[p]!, 'base64url');
      for (let i = 0; i < bytes.length; i++) {
        const flipped = Buffer.from(bytes);
        flipped[i]! ^= 0x01;
        const copy = [...parts];
        copy[p] = flipped.toString('base64url');
        await expectVaultError(
          vault.open([prefix, version, ...copy].join('.'), CONTEXT),
          'vault_open_failed',
        );
      }
    }
  });

  it('refuses malformed blobs with vault_open_failed', async () => {
    const vault = localKeyVault({ keys: { 1: KEY_1 }, current: 1 });
    const sealed = await vault.seal(text('secret'), CONTEXT);
    const malformed = [
      '',
      'not a blob',
      sealed.replace(/^lkv1/, 'lkv2'),
      sealed.replace(/^lkv1\.1/, 'lkv1.01'),
      sealed.slice(0, sealed.lastIndexOf('.')),
      `${sealed}.AAAA`,
      `${sealed}=`,
      sealed.slice(0, -4),
    ];
    for (const blob of malformed) await expectVaultError(vault.open(blob, CONTEXT), 'vault_open_failed');
  });

  it('fails with a clear error, never garbage, under the wrong master key', async () => {
    const sealed = await localKeyVault({ keys: { 1: KEY_1 }, current: 1 }).seal(text('secret'), CONTEXT);
    const other = localKeyVault({ keys: { 1: KEY_2 }, current: 1 });
    await expectVaultError(other.open(sealed, CONTEXT), 'vault_open_failed');
  });

  it('names an unknown key version as vault_key_missing', async () => {
    const sealed = await localKeyVault({ keys: { 3: KEY_1 }, current: 3 }).seal(text('secret'), CONTEXT);
    const vault = localKeyVault({ keys: { 1: KEY_1 }, current: 1 });
    await expectVaultError(vault.open(sealed, CONTEXT), 'vault_key_missing');
  });

  it('rotates: old blobs open after a new current version, rewrap moves them, the old key can go', async () => {
    const v1 = localKeyVault({ keys: { 1: KEY_1 }, current: 1 });
    const old = await v1.seal(text('wallet seed'), CONTEXT);
    expect(sealedKeyVersion(old)).toBe(1);

    const both = localKeyVault({ keys: { 1: KEY_1, 2: KEY_2 }, current: 2 });
    expect(both.currentVersion).toBe(2);
    expect(str(await both.open(old, CONTEXT))).toBe('wallet seed');
    expect(sealedKeyVersion(await both.seal(text('new'), CONTEXT))).toBe(2);

    const rewrapped = await both.rewrap(old, CONTEXT);
    expect(sealedKeyVersion(rewrapped)).toBe(2);
    await expectVaultError(both.rewrap(old, 'another context'), 'vault_open_failed');

    const v2Only = localKeyVault({ keys: { 2: KEY_2 }, current: 2 });
    expect(str(await v2Only.open(rewrapped, CONTEXT))).toBe('wallet seed');
    await expectVaultError(v2Only.open(old, CONTEXT), 'vault_key_missing');
  });

  it('never writes the plaintext into the sealed string, and never seals the same way twice', async () => {
    const vault = localKeyVault({ keys: { 1: KEY_1 }, current: 1 });
    const plaintext =
      'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
    const bytes = text(plaintext);
    const a = await vault.seal(bytes, CONTEXT);
    const b = await vault.seal(bytes, CONTEXT);
    expect(a).not.toBe(b);
    // Every random part differs: fresh wrap IV, data key, IV, so a fresh ciphertext.
    const partsA = a.split('.').slice(2);
    const partsB = b.split('.').slice(2);
    for (const [i, part] of partsA.entries()) expect(part).not.toBe(partsB[i]);
    for (const sealed of [a, b]) {
      expect(sealed).not.toContain('abandon');
      expect(sealed).not.toContain(Buffer.from(plaintext).toString('base64url').slice(0, 12));
      expect(sealed).not.toContain(Buffer.from(plaintext).toString('base64').slice(0, 12));
      expect(sealed).not.toContain(Buffer.from(plaintext).toString('hex').slice(0, 12));
    }
  });

  it('matches docs/key-vault.md: an independent node:crypto decryption of a sealed blob', async () => {
    const key = generateVaultKey();
    const vault = localKeyVault({ keys: { 4: key }, current: 4 });
    const sealed = await vault.seal(text('documented format'), CONTEXT);

    // lkv1.<keyVersion>.<wrapIv>.<wrappedKey>.<iv>.<ciphertext>, parts base64url; each
    // AES-256-GCM ciphertext ends in its 16-byte tag; the associated data of both is
    // "lkv1.<keyVersion>.<context>".
    const [prefix, version, ...parts] = sealed.split('.');
    expect(prefix).toBe('lkv1');
    const [wrapIv, wrappedKey, iv, ciphertext] = parts.map((p) => Buffer.from(p, 'base64url'));
    const aad = Buffer.from(`lkv1.${version}.${CONTEXT}`, 'utf8');
    const gcmOpen = (k: Buffer, nonce: Buffer, data: Buffer) => {
      const decipher = createDecipheriv('aes-256-gcm', k, nonce);
      decipher.setAAD(aad);
      decipher.setAuthTag(data.subarray(data.length - 16));
      return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]);
    };
    const dataKey = gcmOpen(Buffer.from(key, 'base64url'), wrapIv!, wrappedKey!);
    expect(dataKey).toHaveLength(32);
    expect(gcmOpen(dataKey, iv!, ciphertext!).toString('utf8')).toBe('documented format');
  });

  it('accepts standard base64 and base64url master keys, and generates 32-byte base64url keys', async () => {
    const generated = generateVaultKey();
    expect(generated).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(generated, 'base64url')).toHaveLength(32);
    expect(generateVaultKey()).not.toBe(generated);

    const raw = Buffer.from(generated, 'base64url');
    const sealed = await localKeyVault({ keys: { 1: raw.toString('base64') }, current: 1 }).seal(
      text('x'),
      CONTEXT,
    );
    const opened = await localKeyVault({ keys: { 1: raw.toString('base64url') }, current: 1 }).open(
      sealed,
      CONTEXT,
    );
    expect(str(opened)).toBe('x');
  });

  it('validates its options without echoing a key', () => {
    const shortKey = Buffer.alloc(31, 7).toString('base64');
    const bad: unknown[] = [
      { keys: { 1: shortKey }, current: 1 },
      { keys: { 1: 'not base64 at all!' }, current: 1 },
      { keys: { 1: KEY_1 }, current: 2 },
      { keys: { 0: KEY_1 }, current: 0 },
      { keys: { '01': KEY_1 }, current: 1 },
      { keys: {}, current: 1 },
      { keys: { 1: KEY_1 }, current: 1, extra: true },
      { keys: { 1: KEY_1 } },
    ];
    for (const options of bad) {
      const error = (() => {
        try {
          localKeyVault(options as Parameters<typeof localKeyVault>[0]);
        } catch (e) {
          return e;
        }
      })();
      expect(error, JSON.stringify(options)).toBeInstanceOf(Error);
      expect(String(error)).not.toContain(shortKey);
      expect(String(error)).not.toContain(KEY_1);
    }
  });
});

describe('decodeBase64Url (the sealed parts)', () => {
  it('decodes what Buffer encodes, at every length', () => {
    for (let n = 0; n < 70; n++) {
      const bytes = randomBytes(n);
      expect(Buffer.from(decodeBase64Url(bytes.toString('base64url'))!)).toEqual(bytes);
    }
  });

  it('refuses a character outside the alphabet anywhere, even one whose low bits would decode', () => {
    // '+' read as its table's 255 would give the same first byte as '_' (63): 0xfc.
    expect(Buffer.from(decodeBase64Url('_AAA')!)).toEqual(Buffer.of(0xfc, 0, 0));
    for (const bad of ['+', '/', '=', ' ', '.', 'é', '\u{1F600}'])
      for (const text of [`${bad}AAA`, `AAA${bad}`, `AAAA${bad}A`, `AAAAA${bad}`, `AAAAAA${bad}`])
        expect(decodeBase64Url(text), text).toBeUndefined();
    expect(decodeBase64Url('AAAAA')).toBeUndefined();
  });
});
