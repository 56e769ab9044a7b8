import { lowerHeaderName } from './header-name.js';

/**
 * A `Headers` whose entries live in a plain Map, for the answers the API builds itself (see
 * text-response.ts). Every answer gets its content type, five security headers and a request id
 * set one by one, then is read back whole by the adapter; on Node each of those calls on an undici
 * `Headers` runs WebIDL conversions and a sorted copy, which together cost more than the cheap
 * routes do. This one checks names and values as the Fetch standard says (a TypeError for a name
 * that is no token, or a value holding NUL, CR, LF or a character above U+00FF), trims values
 * the same way, and iterates in the same order: names sorted, each `set-cookie` on its own, other
 * repeats joined with ", ".
 *
 * It is a `Headers` by prototype, so `instanceof` holds, but holds no undici state: every member
 * is its own (undici's, called on it, throw). Iteration goes over a snapshot taken when it
 * starts, where undici's sees changes made meanwhile. Code that copies it (`new Headers(h)`, `new Response(body, { headers: h })`) reads
 * it through its iterator, as it would any record.
 */
export function listHeaders(init?: HeadersInit): Headers {
  const headers = Object.create(listHeadersPrototype()) as ListHeaders;
  headers[VALUES] = new Map();
  headers[COOKIES] = [];
  headers[SORTED] = undefined;
  if (init !== undefined) fill(headers, init);
  return headers as unknown as Headers;
}

const VALUES = Symbol('values');
const COOKIES = Symbol('cookies');
const SORTED = Symbol('sorted');

interface ListHeaders {
  /** Lower-cased name → its value, repeats joined with ", " (all but set-cookie). */
  [VALUES]: Map<string, string>;
  /** Each set-cookie apart, as iteration and getSetCookie give them. */
  [COOKIES]: string[];
  /** The names in iteration order, kept until a name comes or goes. */
  [SORTED]: string[] | undefined;
}

// NUL, CR and LF, and what is no byte (WebIDL's ByteString refuses code points above 0xFF).
const FORBIDDEN_IN_VALUE = /[\0\r\n\u0100-\uffff]/;
// HTTP whitespace at either end, which the standard strips from every value.
const EDGE_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;
const isHttpWhitespace = (code: number) => code === 9 || code === 10 || code === 13 || code === 32;

/** WebIDL's conversion of an argument to a string: a TypeError for a missing one or a symbol. */
function argument(value: unknown, given: boolean): string {
  if (!given) throw new TypeError('Headers: a required argument is missing.');
  if (typeof value === 'symbol') throw new TypeError('Headers: a symbol is not a header name or value.');
  return String(value);
}

function checkedName(name: unknown, given = true): string {
  const text = argument(name, given);
  const lower = lowerHeaderName(text);
  if (lower === undefined) throw new TypeError(`Headers: "${text}" is an invalid header name.`);
  return lower;
}

function checkedValue(name: string, value: unknown, given = true): string {
  let text = argument(value, given);
  if (
    text !== '' &&
    (isHttpWhitespace(text.charCodeAt(0)) || isHttpWhitespace(text.charCodeAt(text.length - 1)))
  )
    text = text.replace(EDGE_WHITESPACE, '');
  if (FORBIDDEN_IN_VALUE.test(text)) throw new TypeError(`Headers: invalid value for the header "${name}".`);
  return text;
}

function fill(headers: ListHeaders, init: HeadersInit): void {
  if (typeof init !== 'object' || init === null) throw new TypeError('Headers: the init is not an object.');
  if (init instanceof Headers) {
    // undici's own, or another of these: both give each set-cookie apart.
    init.forEach((value, name) => {
      append(headers, name, value);
    });
    return;
  }
  const iterate = (init as { [Symbol.iterator]?: unknown })[Symbol.iterator];
  if (typeof iterate === 'function') {
    for (const pair of init as Iterable<Iterable<string>>) {
      if (typeof pair !== 'object' || pair === null) throw new TypeError('Headers: an entry is not a pair.');
      const entry = Array.isArray(pair) ? pair : [...pair];
      if (entry.length !== 2) throw new TypeError('Headers: each entry must be a [name, value] pair.');
      append(headers, entry[0], entry[1]);
    }
    return;
  }
  for (const name of Object.keys(init)) append(headers, name, (init as Record<string, string>)[name]);
}

function append(headers: ListHeaders, name: unknown, value: unknown): void {
  const key = checkedName(name);
  const text = checkedValue(key, value);
  if (key === 'set-cookie') {
    if (headers[COOKIES].length === 0) headers[SORTED] = undefined;
    headers[COOKIES].push(text);
    return;
  }
  const before = headers[VALUES].get(key);
  if (before === undefined) headers[SORTED] = undefined;
  headers[VALUES].set(key, before === undefined ? text : `${before}, ${text}`);
}

function sortedNames(headers: ListHeaders): string[] {
  if (headers[SORTED] === undefined) {
    const names = [...headers[VALUES].keys()];
    if (headers[COOKIES].length > 0) names.push('set-cookie');
    headers[SORTED] = names.sort();
  }
  return headers[SORTED];
}

/** The entries as iteration gives them: sorted by name, each set-cookie apart, repeats joined. */
function sortedEntries(headers: ListHeaders): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const name of sortedNames(headers)) {
    if (name === 'set-cookie') for (const v of headers[COOKIES]) out.push([name, v]);
    else out.push([name, headers[VALUES].get(name)!]);
  }
  return out;
}

function entries(this: ListHeaders): IterableIterator<[string, string]> {
  return sortedEntries(this)[Symbol.iterator]();
}

let prototype: object | undefined;

/** Built on first use: on Node, touching the global `Headers` loads the whole of undici. */
function listHeadersPrototype(): object {
  prototype ??= makePrototype();
  return prototype;
}

function makePrototype(): object {
  return Object.create(Headers.prototype, {
    append: {
      value(this: ListHeaders, name: string, value: string) {
        if (arguments.length < 2) throw new TypeError('Headers.append: two arguments are required.');
        append(this, name, value);
      },
    },
    set: {
      value(this: ListHeaders, name: string, value: string) {
        const key = checkedName(name);
        const text = checkedValue(key, value, arguments.length >= 2);
        if (key === 'set-cookie') {
          if (this[COOKIES].length === 0) this[SORTED] = undefined;
          this[COOKIES] = [text];
          return;
        }
        if (!this[VALUES].has(key)) this[SORTED] = undefined;
        this[VALUES].set(key, text);
      },
    },
    delete: {
      value(this: ListHeaders, name: string) {
        const key = checkedName(name, arguments.length >= 1);
        if (key === 'set-cookie') {
          if (this[COOKIES].length > 0) this[SORTED] = undefined;
          this[COOKIES] = [];
        } else if (this[VALUES].delete(key)) {
          this[SORTED] = undefined;
        }
      },
    },
    get: {
      value(this: ListHeaders, name: string) {
        const key = checkedName(name, arguments.length >= 1);
        if (key === 'set-cookie') return this[COOKIES].length > 0 ? this[COOKIES].join(', ') : null;
        return this[VALUES].get(key) ?? null;
      },
    },
    has: {
      value(this: ListHeaders, name: string) {
        const key = checkedName(name, arguments.length >= 1);
        return key === 'set-cookie' ? this[COOKIES].length > 0 : this[VALUES].has(key);
      },
    },
    getSetCookie: {
      value(this: ListHeaders) {
        return [...this[COOKIES]];
      },
    },
    forEach: {
      value(
        this: ListHeaders,
        callback: (value: string, name: string, parent: Headers) => void,
        thisArg?: unknown,
      ) {
        if (typeof callback !== 'function')
          throw new TypeError('Headers.forEach: the callback is not a function.');
        // No pair per entry: the adapters read every answer's headers through here.
        const self = this as unknown as Headers;
        for (const name of sortedNames(this)) {
          if (name === 'set-cookie') {
            for (const cookie of [...this[COOKIES]]) callback.call(thisArg, cookie, name, self);
          } else {
            const value = this[VALUES].get(name);
            if (value !== undefined) callback.call(thisArg, value, name, self);
          }
        }
      },
    },
    entries: { value: entries },
    keys: {
      value(this: ListHeaders) {
        return sortedEntries(this)
          .map(([name]) => name)
          [Symbol.iterator]();
      },
    },
    values: {
      value(this: ListHeaders) {
        return sortedEntries(this)
          .map(([, value]) => value)
          [Symbol.iterator]();
      },
    },
    [Symbol.iterator]: { value: entries },
    // undici's own inspector reads state this object does not have: logging an answer must work.
    [Symbol.for('nodejs.util.inspect.custom')]: {
      value(
        this: ListHeaders,
        _depth: number,
        options: unknown,
        inspect: (v: unknown, o: unknown) => string,
      ) {
        const shown: Record<string, string | string[]> = {};
        for (const name of sortedNames(this))
          shown[name] = name === 'set-cookie' ? [...this[COOKIES]] : this[VALUES].get(name)!;
        return `Headers ${inspect(shown, options)}`;
      },
    },
  });
}
