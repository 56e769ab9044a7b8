import { describe, expect, it } from 'vitest';
import { jwtReuse, sameJson } from '../src/sessions/jwt-reuse.js';
import type { Factor } from '../src/shared/factor.js';

describe('sameJson (the JWT reuse check on factors)', () => {
  it('ignores key order and undefined-valued keys, nothing else', () => {
    expect(sameJson({ a: 1, b: { c: [1, 'x'] } }, { b: { c: [1, 'x'] }, a: 1 })).toBe(true);
    expect(sameJson({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(sameJson({ a: 1 }, { a: '1' })).toBe(false);
    expect(sameJson([1, 2], [2, 1])).toBe(false);
    expect(sameJson([1], { 0: 1 })).toBe(false);
    expect(sameJson({ a: [1] }, { a: [1, 1] })).toBe(false);
    expect(sameJson(null, {})).toBe(false);
  });

  it('reuses a JWT only while the factors are the same', () => {
    const factor = (id: string) =>
      ({ type: 'otp', delivery_channel: 'email', method: { method_id: id } }) as unknown as Factor;
    const reuse = jwtReuse();
    reuse.remember('s', { jwt: 'j', kid: 'k', iat: 0, exp: 100, factors: [factor('a')] });
    const reordered = [
      { method: { method_id: 'a' }, delivery_channel: 'email', type: 'otp' },
    ] as unknown as Factor[];
    expect(reuse.reusable('s', 'k', reordered, 10)).toBe('j');
    expect(reuse.reusable('s', 'k', [factor('a'), factor('b')], 10)).toBeUndefined();
    expect(reuse.reusable('s', 'k', [factor('b')], 10)).toBeUndefined();
    expect(reuse.reusable('s', 'other', [factor('a')], 10)).toBeUndefined();
    expect(reuse.reusable('s', 'k', [factor('a')], 60)).toBeUndefined();
  });
});
