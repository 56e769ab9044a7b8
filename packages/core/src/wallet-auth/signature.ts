import { ed25519 } from '@noble/curves/ed25519.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { base58, base64, base64urlnopad, hex } from '@scure/base';
import { ethereumAddressesEqual, toChecksumAddress } from '../chains/index.js';
import { utf8 } from '../crypto/encoding.js';
import type { SignInWalletType } from './repo.js';

/**
 * The signature's bytes, or undefined when it is not in the chain's encoding: for ethereum 65
 * bytes (r ‖ s ‖ v) as `0x` hex or base64 (standard or url-safe, padded or not); for solana 64
 * bytes as base58.
 */
export function decodeSignature(walletType: SignInWalletType, text: string): Uint8Array | undefined {
  const s = text.trim();
  try {
    if (walletType === 'solana') {
      const bytes = base58.decode(s);
      return bytes.length === 64 ? bytes : undefined;
    }
    let bytes: Uint8Array;
    if (/^0x[0-9a-fA-F]*$/i.test(s)) bytes = hex.decode(s.slice(2).toLowerCase());
    else if (/^[A-Za-z0-9+/]+={0,2}$/.test(s)) bytes = base64.decode(padBase64(s));
    else bytes = base64urlnopad.decode(s.replace(/=+$/, ''));
    return bytes.length === 65 ? bytes : undefined;
  } catch {
    return undefined;
  }
}

const padBase64 = (s: string) => {
  const body = s.replace(/=+$/, '');
  return body + '='.repeat((4 - (body.length % 4)) % 4);
};

/** EIP-191 version 0x45 (`personal_sign`): keccak256 of the prefixed message. */
export function personalMessageHash(message: string): Uint8Array {
  const bytes = utf8(message);
  const prefix = utf8(`\x19Ethereum Signed Message:\n${bytes.length}`);
  const prefixed = new Uint8Array(prefix.length + bytes.length);
  prefixed.set(prefix);
  prefixed.set(bytes, prefix.length);
  return keccak_256(prefixed);
}

/**
 * The EIP-55 address whose key made this `personal_sign` signature over `message`, or undefined
 * when no key did (malformed r or s, a recovery id other than 27/28 or 0/1). High-s signatures
 * recover as ecrecover does: a single-use nonce leaves malleability nothing to replay.
 */
export function recoverEthereumAddress(message: string, signature: Uint8Array): string | undefined {
  if (signature.length !== 65) return undefined;
  const v = signature[64]!;
  const recovery = v >= 27 ? v - 27 : v;
  if (recovery !== 0 && recovery !== 1) return undefined;
  try {
    const point = secp256k1.Signature.fromBytes(signature.subarray(0, 64), 'compact')
      .addRecoveryBit(recovery)
      .recoverPublicKey(personalMessageHash(message));
    const publicKey = point.toBytes(false).subarray(1);
    return toChecksumAddress(`0x${hex.encode(keccak_256(publicKey).subarray(12))}`);
  } catch {
    return undefined;
  }
}

/** Whether `signature` is the wallet's signature over `message` (its UTF-8 bytes). */
export function verifyWalletSignature(
  walletType: SignInWalletType,
  message: string,
  signature: Uint8Array,
  address: string,
): boolean {
  if (walletType === 'ethereum') {
    const signer = recoverEthereumAddress(message, signature);
    return signer !== undefined && ethereumAddressesEqual(signer, address);
  }
  try {
    return ed25519.verify(signature, utf8(message), base58.decode(address));
  } catch {
    return false;
  }
}
