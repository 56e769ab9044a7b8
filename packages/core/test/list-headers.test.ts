import { inspect } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { listHeaders } from '../src/http/list-headers.js';
import { textResponse } from '../src/http/text-response.js';

/** What a Headers shows of itself: every reading member, for comparing two of them. */
function reading(h: Headers, names: string[]) {
  const forEach: string[][] = [];
  h.forEach((value, name, parent) => {
    forEach.push([name, value, String(parent === h)]);
  });
  return {
    entries: [...h],
    viaEntries: [...h.entries()],
    keys: [...h.keys()],
    values: [...h.values()],
    forEach,
    setCookie: h.getSetCookie(),
    gets: names.map((n) => [h.get(n), h.has(n)]),
  };
}

/** The outcome of a call: its value, or the kind of error it threw. */
function outcome(call: () => unknown) {
  try {
    return { value: call() };
  } catch (err) {
    return { threw: (err as Error).constructor.name };
  }
}

const names = fc.constantFrom(
  'content-type',
  'Content-Type',
  'x-request-id',
  'set-cookie',
  'Set-Cookie',
  'vary',
  'allow',
  'a',
  'X-Ä', // not a token
  'bad name',
  '',
);
const values = fc.oneof(
  fc.constantFrom(
    'a=1; Path=/',
    ' padded\t',
    'x, y',
    '',
    'line\nbreak',
    'nul\0',
    'ok',
    'é',
    'check ✓',
    '\u{1F511}',
  ),
  fc.string({ maxLength: 6 }),
);
const operation = fc.oneof(
  fc.tuple(fc.constant('append' as const), names, values),
  fc.tuple(fc.constant('set' as const), names, values),
  fc.tuple(fc.constant('delete' as const), names, fc.constant('')),
);

describe('listHeaders: a Headers kept in a Map', () => {
  it('answers every operation as undici Headers does, errors included', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 25 }), (ops) => {
        const real = new Headers();
        const list = listHeaders();
        for (const [op, name, value] of ops) {
          const call = (h: Headers) => () => (op === 'delete' ? h.delete(name) : h[op](name, value));
          expect(outcome(call(list))).toEqual(outcome(call(real)));
        }
        expect(reading(list, ['content-type', 'set-cookie', 'vary', 'a', 'missing'])).toEqual(
          reading(real, ['content-type', 'set-cookie', 'vary', 'a', 'missing']),
        );
      }),
      { numRuns: 500 },
    );
  });

  it('takes a record, a list of pairs or another Headers, and refuses what Headers refuses', () => {
    const inits: HeadersInit[] = [
      { 'Content-Type': 'application/json', 'x-b': ' 2 ' },
      [
        ['set-cookie', 'a=1'],
        ['Set-Cookie', 'b=2'],
        ['vary', 'Origin'],
        ['VARY', 'Accept'],
      ],
      new Headers({ 'x-c': '3', allow: 'GET' }),
      listHeaders({ 'x-d': '4' }),
    ];
    for (const init of inits)
      expect(reading(listHeaders(init), ['vary', 'set-cookie'])).toEqual(
        reading(new Headers(init), ['vary', 'set-cookie']),
      );
    for (const bad of [{ 'a b': '1' }, { a: 'x\ny' }, [['a']], [['a', 'b', 'c']]] as HeadersInit[]) {
      expect(() => new Headers(bad)).toThrow(TypeError);
      expect(() => listHeaders(bad)).toThrow(TypeError);
    }
  });

  it('refuses missing arguments, symbols and entries that are no pairs, as Headers does', () => {
    const calls: Array<(h: Headers) => unknown> = [
      (h) => (h.get as () => unknown)(),
      (h) => (h.has as () => unknown)(),
      (h) => (h.delete as () => unknown)(),
      (h) => (h.set as (n: string) => unknown)('a'),
      (h) => (h.append as (n: string) => unknown)('a'),
      (h) => h.set(Symbol('a') as unknown as string, 'x'),
      (h) => h.append('a', Symbol('x') as unknown as string),
      (h) => h.forEach(1 as unknown as () => void),
    ];
    for (const call of calls) {
      expect(outcome(() => call(listHeaders({ a: '1' })))).toEqual(
        outcome(() => call(new Headers({ a: '1' }))),
      );
      expect(outcome(() => call(listHeaders()))).toEqual({ threw: 'TypeError' });
    }
    for (const bad of [['ab'], [1]] as unknown as HeadersInit[]) {
      expect(() => new Headers(bad)).toThrow(TypeError);
      expect(() => listHeaders(bad)).toThrow(TypeError);
    }
  });

  it('prints with util.inspect, so an answer can be logged', () => {
    const h = listHeaders({ 'x-a': '1' });
    h.append('set-cookie', 'a=1');
    expect(inspect(h)).toContain("'x-a': '1'");
    expect(inspect(h)).toContain("'a=1'");
    expect(() => inspect(textResponse('{}', { headers: h }))).not.toThrow();
  });

  it('is a Headers to instanceof, and copies into undici Headers and Responses', async () => {
    const h = listHeaders({ 'x-a': '1' });
    h.append('set-cookie', 'a=1');
    h.append('set-cookie', 'b=2');
    expect(h).toBeInstanceOf(Headers);
    expect(reading(new Headers(h), ['x-a'])).toEqual(reading(h, ['x-a']));
    const res = new Response('body', { status: 202, headers: h });
    expect(res.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(res.headers.get('x-a')).toBe('1');
  });
});

describe('TextResponse headers', () => {
  it('hold what the init gave, change in place, and travel with clones and re-wraps', async () => {
    const head = new Response(null, { status: 201, headers: { 'content-type': 'application/json' } });
    const res = textResponse('{"a":1}', head);
    expect(res.status).toBe(201);
    res.headers.set('x-request-id', 'req_1');
    res.headers.append('vary', 'Origin');
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('x-request-id')).toBe('req_1');
    const clone = res.clone();
    const rewrapped = new Response(res.body, res);
    for (const copy of [clone, rewrapped]) {
      expect([...copy.headers]).toEqual([
        ['content-type', 'application/json'],
        ['vary', 'Origin'],
        ['x-request-id', 'req_1'],
      ]);
      expect(copy.status).toBe(201);
    }
    expect(await rewrapped.json()).toEqual({ a: 1 });
  });
});
