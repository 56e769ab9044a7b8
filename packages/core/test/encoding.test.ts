import { describe, expect, it } from 'vitest';
import { fromBase64Url, timingSafeEqual, toBase64Url } from '../src/index.js';

describe('timingSafeEqual', () => {
  it('tells equal from unequal byte strings of every length and position', () => {
    for (let n = 0; n <= 64; n += 8) {
      const a = crypto.getRandomValues(new Uint8Array(n));
      expect(timingSafeEqual(a, a.slice())).toBe(true);
      for (let i = 0; i < n; i++) {
        const b = a.slice();
        b[i] = b[i]! ^ 1;
        expect(timingSafeEqual(a, b)).toBe(false);
      }
      expect(timingSafeEqual(a, new Uint8Array(n + 1))).toBe(false);
    }
  });

  it('looks at every byte: the running time does not depend on where the first difference is', () => {
    // Not a timing measurement (too noisy for CI), but the property that makes it constant time:
    // the loop visits every byte whatever the input, counted through a Proxy.
    const visits = (diffAt: number) => {
      let reads = 0;
      const a = new Uint8Array(32);
      const b = new Uint8Array(32);
      b[diffAt] = 1;
      const counted = new Proxy(Array.from(b), {
        get(target, key, receiver) {
          if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
          return Reflect.get(target, key, receiver);
        },
      });
      timingSafeEqual(a, counted as unknown as Uint8Array);
      return reads;
    };
    expect(visits(0)).toBe(32);
    expect(visits(31)).toBe(32);
  });
});

describe('base64url', () => {
  it('round-trips and tolerates padding', () => {
    const bytes = crypto.getRandomValues(new Uint8Array(33));
    expect(fromBase64Url(toBase64Url(bytes))).toEqual(bytes);
    expect(fromBase64Url(`${toBase64Url(new Uint8Array([1]))}==`)).toEqual(new Uint8Array([1]));
    expect(toBase64Url(new Uint8Array([251, 255]))).toBe('-_8');
  });
});
