import { secp256k1 } from '@noble/curves/secp256k1.js';
import { computeAddress, SigningKey } from 'ethers';
import { describe, expect, it, vi } from 'vitest';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** Fresh copies of the module: one with node:crypto, one on a runtime without it. */
async function load(withNode: boolean) {
  vi.resetModules();
  const saved = process.getBuiltinModule;
  if (!withNode) (process as { getBuiltinModule?: unknown }).getBuiltinModule = undefined;
  try {
    const m = await import('../src/chains/secp256k1-public.js');
    // The runtime is looked at on the first call.
    m.secp256k1PublicKey(secp256k1.utils.randomSecretKey(), true);
    return m.secp256k1PublicKey;
  } finally {
    process.getBuiltinModule = saved;
  }
}

describe('secp256k1PublicKey', () => {
  it('gives ethers’ and @noble’s bytes, compressed and not, with and without node:crypto', async () => {
    const keys = [
      Uint8Array.from([...new Uint8Array(31), 1]),
      secp256k1.Point.Fn.toBytes(secp256k1.Point.Fn.ORDER - 1n),
      ...Array.from({ length: 20 }, () => secp256k1.utils.randomSecretKey()),
    ] as Uint8Array[];
    for (const withNode of [true, false]) {
      const publicKey = await load(withNode);
      for (const key of keys) {
        const signing = new SigningKey(key);
        expect(`0x${hex(publicKey(key, true))}`).toBe(signing.compressedPublicKey);
        expect(`0x${hex(publicKey(key, false))}`).toBe(signing.publicKey);
        expect(computeAddress(`0x${hex(publicKey(key, false))}`)).toBe(computeAddress(signing.publicKey));
      }
    }
  });
});
