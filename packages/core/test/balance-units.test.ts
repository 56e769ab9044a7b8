import { formatUnits, parseUnits } from '@latchkey/core';
import { blake2AsU8a, xxhashAsU8a } from '@polkadot/util-crypto';
import { formatUnits as ethersFormatUnits, parseUnits as ethersParseUnits } from 'ethers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
// Internal pieces, tested directly: they are not part of the public API.
import { parseJsonExact } from '../src/balances/clients/json.js';
import { decodeFreeBalance, systemAccountKey } from '../src/balances/clients/substrate.js';
import { twox128, xxhash64 } from '../src/balances/clients/twox.js';

const U128_MAX = 2n ** 128n - 1n;
const u128 = fc.bigInt({ min: 0n, max: U128_MAX });
// Small values, values near a power of ten and the whole range: the interesting cases are where
// the fraction is short, empty, or the integer part is zero.
const amounts = fc.oneof(
  u128,
  fc.bigInt({ min: 0n, max: 10n ** 20n }),
  fc.tuple(fc.integer({ min: 0, max: 38 }), fc.integer({ min: -3, max: 3 })).map(([e, d]) => {
    const v = 10n ** BigInt(e) + BigInt(d);
    return v < 0n ? 0n : v > U128_MAX ? U128_MAX : v;
  }),
);
const decimals = fc.oneof(fc.constantFrom(0, 6, 7, 9, 10, 18), fc.integer({ min: 0, max: 40 }));

/** The reference: ethers' formatUnits (which always keeps one fraction digit) without a bare `.0`. */
const reference = (v: bigint, d: number) => ethersFormatUnits(v, d).replace(/\.0$/, '');

describe('decimal amounts', () => {
  it('formats every u128 at any decimals like the reference, in the documented form', () => {
    fc.assert(
      fc.property(amounts, decimals, (v, d) => {
        const text = formatUnits(v, d);
        expect(text).toBe(reference(v, d));
        // Documented form: digits, a point only before a non-empty fraction without trailing zeros.
        expect(text).toMatch(/^(0|[1-9]\d*)(\.\d*[1-9])?$/);
        expect((text.split('.')[1] ?? '').length).toBeLessThanOrEqual(d);
      }),
      { numRuns: 3000 },
    );
  });

  it('parses back to the same atomic units, agreeing with ethers', () => {
    fc.assert(
      fc.property(amounts, decimals, (v, d) => {
        const text = formatUnits(v, d);
        expect(parseUnits(text, d)).toBe(v);
        expect(ethersParseUnits(text, d)).toBe(v);
      }),
      { numRuns: 2000 },
    );
  });

  it('formats the cases a reader checks by eye', () => {
    expect(formatUnits(0n, 18)).toBe('0');
    expect(formatUnits(1n, 18)).toBe('0.000000000000000001');
    expect(formatUnits(10n ** 18n, 18)).toBe('1');
    expect(formatUnits(1_500_000n, 6)).toBe('1.5');
    expect(formatUnits(1_000_000_000n, 9)).toBe('1');
    expect(formatUnits(123n, 0)).toBe('123');
    expect(formatUnits(U128_MAX, 18)).toBe('340282366920938463463.374607431768211455');
    expect(formatUnits(U128_MAX, 0)).toBe('340282366920938463463374607431768211455');
    expect(formatUnits(U128_MAX, 40)).toBe('0.0340282366920938463463374607431768211455');
    expect(() => formatUnits(1n, -1)).toThrow(RangeError);
    expect(() => formatUnits(1n, 1.5)).toThrow(RangeError);
  });

  it('parses only plain non-negative decimals with at most `decimals` places', () => {
    expect(parseUnits('9999.9999900', 7)).toBe(99_999_999_900n);
    expect(parseUnits('0.0000001', 7)).toBe(1n);
    expect(parseUnits('100000000000.0000000', 7)).toBe(1_000_000_000_000_000_000n);
    expect(parseUnits('7', 7)).toBe(70_000_000n);
    for (const bad of ['', '.5', '5.', '-1', '+1', '1e3', ' 1', '1 ', '1,5', '0x10', '1.00000001', 'NaN']) {
      expect(parseUnits(bad, 7), bad).toBeUndefined();
    }
  });
});

/** JSON.parse's result with our bigints turned into the numbers JSON.parse would give. */
const asNumbers = (v: unknown): unknown =>
  typeof v === 'bigint'
    ? Number(v)
    : Array.isArray(v)
      ? v.map(asNumbers)
      : v && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, asNumbers(x)]))
        : v;

const validity = (parse: (s: string) => unknown, s: string) => {
  try {
    parse(s);
    return true;
  } catch (e) {
    expect(e).toBeInstanceOf(SyntaxError);
    return false;
  }
};

describe('exact JSON parsing of RPC answers', () => {
  it('reads every JSON text as JSON.parse does, apart from exact big integers', () => {
    fc.assert(
      fc.property(fc.json({ depthSize: 'medium' }), (text) => {
        expect(asNumbers(parseJsonExact(text))).toEqual(JSON.parse(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('accepts and refuses the same texts as JSON.parse', () => {
    const mutated = fc
      .tuple(
        fc.json(),
        fc.nat(),
        fc.constantFrom('', ',', '}', ']', '"', '\\', '-', '0', 'e', '.', ' ', '\n', '\u0001'),
      )
      .map(([text, at, insert]) => {
        const i = at % (text.length + 1);
        return text.slice(0, i) + insert + text.slice(i + (insert === '' ? 1 : 0));
      });
    fc.assert(
      fc.property(fc.oneof(mutated, fc.string()), (text) => {
        expect(validity(parseJsonExact, text)).toBe(validity(JSON.parse, text));
      }),
      { numRuns: 5000 },
    );
  });

  it('keeps integers beyond 2^53 exact and leaves other numbers to JSON.parse', () => {
    expect(parseJsonExact('{"value":12345678901234567891,"rentEpoch":18446744073709551615}')).toEqual({
      value: 12345678901234567891n,
      rentEpoch: 18446744073709551615n,
    });
    expect(parseJsonExact('[9007199254740991,9007199254740992,-9007199254740993,1.5e300,0.1,-0]')).toEqual([
      9007199254740991,
      9007199254740992n,
      -9007199254740993n,
      1.5e300,
      0.1,
      -0,
    ]);
  });

  it('makes "__proto__" an own key and refuses deep nesting', () => {
    const parsed = parseJsonExact('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.hasOwn(parsed, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(() => parseJsonExact(`${'['.repeat(100_000)}${']'.repeat(100_000)}`)).toThrow(SyntaxError);
  });
});

describe('Substrate storage keys and SCALE', () => {
  it('computes xxHash64 and twox128 as polkadot.js does, for every input length', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 130 }), (data) => {
        expect(twox128(data)).toEqual(xxhashAsU8a(data, 128));
        expect(xxhash64(data, 0n)).toBe(Buffer.from(xxhashAsU8a(data, 64)).readBigUInt64LE());
      }),
      { numRuns: 500 },
    );
    // XXH64 of the empty input with seed 0, from the xxHash reference test vectors.
    expect(xxhash64(new Uint8Array(), 0n)).toBe(0xef46db3751d8e999n);
    // The prefix every client of Substrate chains knows by heart.
    expect(Buffer.from(twox128(new TextEncoder().encode('System'))).toString('hex')).toBe(
      '26aa394eea5630e07c48ae0c9558cef7',
    );
  });

  it('builds the System.Account key as twox128 ++ twox128 ++ blake2_128_concat(id)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (id) => {
        const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
        expect(systemAccountKey(id)).toBe(
          `0x${hex(xxhashAsU8a('System', 128))}${hex(xxhashAsU8a('Account', 128))}${hex(blake2AsU8a(id, 128))}${hex(id)}`,
        );
      }),
      { numRuns: 200 },
    );
  });

  it('decodes the free balance at bytes 16..32 of an 80-byte AccountInfo, little-endian', () => {
    fc.assert(
      fc.property(u128, fc.uint8Array({ minLength: 80, maxLength: 80 }), (free, noise) => {
        const bytes = Uint8Array.from(noise);
        for (let i = 0, v = free; i < 16; i++, v >>= 8n) bytes[16 + i] = Number(v & 0xffn);
        expect(decodeFreeBalance(bytes)).toBe(free);
      }),
    );
    expect(decodeFreeBalance(new Uint8Array(79))).toBeUndefined();
    expect(decodeFreeBalance(new Uint8Array(81))).toBeUndefined();
  });
});
