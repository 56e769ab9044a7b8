import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findUnstorableText, mayHoldUnstorableText } from '../src/http/text-safety.js';

/** Strings drawn from ordinary text, NUL, and both halves of surrogate pairs alone or paired. */
const text = fc.string({
  unit: fc.oneof(
    fc.constantFrom('a', 'é', '\u0000', '\ud800', '\udfff', '\ud83d\ude00', '\\', 'u', '0'),
    fc.string({ minLength: 1, maxLength: 1 }),
  ),
  maxLength: 6,
});
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    text,
    fc.integer(),
    fc.constant(null),
    fc.array(tie('value')),
    fc.dictionary(text, tie('value'), { maxKeys: 4 }),
  ),
})).value;

describe('findUnstorableText', () => {
  it('names the path of the culprit, array items by index', () => {
    expect(findUnstorableText([1, 'ok', { a: ['x', 'b\u0000'] }])).toBe('2.a.1');
    expect(findUnstorableText({ list: [true, null, 3, { 'k\ud800': 1 }] })).toBe('list.3.k\ud800');
    expect(findUnstorableText({ a: [1, 2, 3], b: 'fine', c: { d: '\ud83d\ude00' } })).toBeUndefined();
    expect(findUnstorableText('\udfff')).toBe('');
  });

  it('never misses what the pre-check lets through: every JSON text with unstorable text is flagged', () => {
    fc.assert(
      fc.property(json, (value) => {
        const body = JSON.stringify(value);
        const culprit = findUnstorableText(JSON.parse(body));
        if (culprit !== undefined) expect(mayHoldUnstorableText(body)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('lets ordinary bodies skip the walk', () => {
    expect(mayHoldUnstorableText(JSON.stringify({ session_token: 'lks_abc', n: [1, 2, 3] }))).toBe(false);
    expect(mayHoldUnstorableText(JSON.stringify({ name: 'Zoë 😀' }))).toBe(true); // a pair: walked, and passes
    expect(findUnstorableText({ name: 'Zoë 😀' })).toBeUndefined();
    expect(mayHoldUnstorableText('{"a":"\\u0000"}')).toBe(true);
    expect(mayHoldUnstorableText('{"a":"\\uDBFF"}')).toBe(true);
    expect(mayHoldUnstorableText('{"a":"\\u00e9"}')).toBe(false);
  });
});
