import { secp256k1 } from '@noble/curves/secp256k1.js';

interface Ecdh {
  setPrivateKey(key: Uint8Array): void;
  getPublicKey(encoding: null, format: 'compressed' | 'uncompressed'): Uint8Array;
}

interface NodeEcdh {
  createECDH(curve: 'secp256k1'): Ecdh;
  getCurves(): string[];
}

/** The runtime's native secp256k1 (node:crypto's ECDH, found at run time), or null. */
let native: NodeEcdh | null | undefined;

function nativeEcdh(): NodeEcdh | null {
  if (native !== undefined) return native;
  native = null;
  try {
    const runtime = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    const crypto = runtime?.getBuiltinModule?.('node:crypto') as Partial<NodeEcdh> | undefined;
    if (typeof crypto?.createECDH === 'function' && crypto.getCurves?.().includes('secp256k1'))
      native = crypto as NodeEcdh;
  } catch {
    // No node:crypto here: @noble computes it.
  }
  return native;
}

/**
 * The public key of a valid secp256k1 secret key (SEC1, compressed or not). Node's native
 * curve arithmetic where the runtime has it, a few times faster than @noble's (wallet creation
 * computes three: two BIP-32 steps and the address; a BIP-322 signature one); the same bytes.
 */
export function secp256k1PublicKey(secret: Uint8Array, compressed: boolean): Uint8Array {
  const node = nativeEcdh();
  if (!node) return secp256k1.getPublicKey(secret, compressed);
  const ecdh = node.createECDH('secp256k1');
  ecdh.setPrivateKey(secret);
  return new Uint8Array(ecdh.getPublicKey(null, compressed ? 'compressed' : 'uncompressed'));
}
