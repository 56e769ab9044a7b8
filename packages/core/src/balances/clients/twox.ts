/**
 * xxHash64 (the XXH64 specification) and Substrate's twox128/twox64 built from it: the hashers
 * of storage prefixes. BigInt arithmetic masked to 64 bits; inputs here are a few bytes.
 */

const MASK = (1n << 64n) - 1n;
const P1 = 0x9e3779b185ebca87n;
const P2 = 0xc2b2ae3d27d4eb4fn;
const P3 = 0x165667b19e3779f9n;
const P4 = 0x85ebca77c2b2ae63n;
const P5 = 0x27d4eb2f165667c5n;

const rotl = (x: bigint, r: bigint) => ((x << r) | (x >> (64n - r))) & MASK;
const mul = (a: bigint, b: bigint) => (a * b) & MASK;
const add = (a: bigint, b: bigint) => (a + b) & MASK;

const round = (acc: bigint, lane: bigint) => mul(rotl(add(acc, mul(lane, P2)), 31n), P1);
const merge = (acc: bigint, v: bigint) => add(mul(acc ^ round(0n, v), P1), P4);

function readU64(b: Uint8Array, at: number): bigint {
  let v = 0n;
  for (let i = 7; i >= 0; i--) v = (v << 8n) | BigInt(b[at + i]!);
  return v;
}

function readU32(b: Uint8Array, at: number): bigint {
  return BigInt((b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0);
}

export function xxhash64(data: Uint8Array, seed: bigint): bigint {
  const len = data.length;
  let at = 0;
  let h: bigint;
  if (len >= 32) {
    let v1 = add(add(seed, P1), P2);
    let v2 = add(seed, P2);
    let v3 = seed & MASK;
    let v4 = (seed - P1) & MASK;
    for (; at + 32 <= len; at += 32) {
      v1 = round(v1, readU64(data, at));
      v2 = round(v2, readU64(data, at + 8));
      v3 = round(v3, readU64(data, at + 16));
      v4 = round(v4, readU64(data, at + 24));
    }
    h = add(add(rotl(v1, 1n), rotl(v2, 7n)), add(rotl(v3, 12n), rotl(v4, 18n)));
    h = merge(merge(merge(merge(h, v1), v2), v3), v4);
  } else {
    h = add(seed, P5);
  }
  h = add(h, BigInt(len));
  for (; at + 8 <= len; at += 8) h = add(mul(rotl(h ^ round(0n, readU64(data, at)), 27n), P1), P4);
  if (at + 4 <= len) {
    h = add(mul(rotl(h ^ mul(readU32(data, at), P1), 23n), P2), P3);
    at += 4;
  }
  for (; at < len; at++) h = mul(rotl(h ^ mul(BigInt(data[at]!), P5), 11n), P1);
  h = mul(h ^ (h >> 33n), P2);
  h = mul(h ^ (h >> 29n), P3);
  return h ^ (h >> 32n);
}

/** Substrate's `Twox128`: xxHash64 with seeds 0 and 1, each little-endian, concatenated. */
export function twox128(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(16);
  for (let seed = 0; seed < 2; seed++) {
    let h = xxhash64(data, BigInt(seed));
    for (let i = 0; i < 8; i++, h >>= 8n) out[seed * 8 + i] = Number(h & 0xffn);
  }
  return out;
}
