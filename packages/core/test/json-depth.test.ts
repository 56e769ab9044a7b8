import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../src/http/json-depth.js';
import { testApp, testLatchkey } from './helpers.js';

const depthOf = (v: unknown): number =>
  v !== null && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v).map(depthOf)) : 0;

/** Strings full of what a naive scan would miscount: brackets, quotes, backslashes. */
const tricky = fc.string({ unit: fc.constantFrom('[', ']', '{', '}', '"', '\\', 'a', 'é', '\u0000') });

describe('nestsDeeperThan', () => {
  it('agrees with the depth of what JSON.parse builds, strings and all', () => {
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'medium' },
        tricky,
        fc.integer(),
        fc.constant(null),
        fc.array(tie('value'), { maxLength: 3 }),
        fc.dictionary(tricky, tie('value'), { maxKeys: 3 }),
      ),
    })).value;
    fc.assert(
      fc.property(json, fc.nat(8), (value, max) => {
        const text = JSON.stringify(value);
        expect(nestsDeeperThan(text, max)).toBe(depthOf(JSON.parse(text)) > max);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('a JSON body nested past the limit', () => {
  const { latchkey } = testLatchkey();
  afterAll(() => latchkey.close());
  const nested = (levels: number) => `{"session_token":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;

  it('is refused as invalid_json before it is parsed; one level less is read as usual', async () => {
    const t = await testApp(latchkey);
    const send = (body: string) =>
      latchkey.fetch(
        new Request('http://latchkey.test/v1/auth/sessions/authenticate', {
          method: 'POST',
          headers: { authorization: `Bearer ${t.public_token}`, 'content-type': 'application/json' },
          body,
        }),
      );
    const deep = await send(nested(MAX_JSON_DEPTH + 1));
    expect(deep.status).toBe(400);
    expect(await deep.json()).toMatchObject({
      error_type: 'invalid_json',
      error_message: `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`,
    });
    const within = await send(nested(MAX_JSON_DEPTH));
    expect(within.status).toBe(400);
    expect(await within.json()).toMatchObject({ error_type: 'invalid_field' });
  });
});
