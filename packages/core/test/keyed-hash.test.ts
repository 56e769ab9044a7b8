import { createHmac, hkdfSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keyedHasher } from '../src/crypto/keyed-hash.js';

// node:crypto's HKDF and HMAC as the independent oracle: the stored hashes of API keys, tokens
// and codes must not change when the hashing code does.
const oracle = (secret: string, purpose: string, value: string) => {
  const key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), `latchkey/keyed-hash/${purpose}`, 32));
  return createHmac('sha256', key).update(value, 'utf8').digest('hex');
};

describe('keyedHasher', () => {
  it('is HMAC-SHA256 under an HKDF key per purpose, the same on every call', () => {
    const hasher = keyedHasher('an App secret of some length, 32+ chars');
    for (const purpose of ['api_key', 'session_token', 'otp', 'recovery_code'] as const) {
      for (const value of ['', 'lks_abc', 'é✓ unicode', 'x'.repeat(300)]) {
        const expected = oracle('an App secret of some length, 32+ chars', purpose, value);
        expect(hasher.hash(purpose, value)).toBe(expected);
        // The keyed state is reused: a second call must not see the first one's input.
        expect(hasher.hash(purpose, value)).toBe(expected);
      }
    }
  });

  it('keeps purposes apart', () => {
    const hasher = keyedHasher('another App secret, long enough here');
    expect(hasher.hash('api_key', 'v')).not.toBe(hasher.hash('session_token', 'v'));
  });
});
