import { decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { protectedHeaderKid } from '../src/sessions/jose.js';

describe('protectedHeaderKid', () => {
  it("reads the kid of a signed JWT as jose's decodeProtectedHeader does", async () => {
    const { privateKey } = await generateKeyPair('ES256');
    for (const kid of ['key_0a1b2c', 'ünï/cødé+=', undefined]) {
      const header = kid === undefined ? { alg: 'ES256' } : { alg: 'ES256', kid, typ: 'JWT' };
      const jwt = await new SignJWT({ sub: 'u' }).setProtectedHeader(header).sign(privateKey);
      expect(protectedHeaderKid(jwt)).toBe(String(decodeProtectedHeader(jwt).kid));
    }
  });
});
