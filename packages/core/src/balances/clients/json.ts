/**
 * JSON.parse, except that an integer literal beyond Number.MAX_SAFE_INTEGER becomes a bigint
 * instead of a rounded number: Solana sends lamports as bare JSON numbers, and a rounded balance
 * would be a wrong one. Objects are built without the `__proto__` setter, nesting is bounded.
 * Throws SyntaxError on anything JSON.parse would refuse.
 */
export function parseJsonExact(text: string): unknown {
  let i = 0;

  const fail = (what: string): never => {
    throw new SyntaxError(`${what} at position ${i}`);
  };
  const skipSpace = () => {
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
      i++;
    }
  };
  /** Consumes `c` when it is next. */
  const eat = (c: string) => {
    if (text[i] !== c) return false;
    i++;
    return true;
  };
  const expect = (word: string) => {
    if (text.startsWith(word, i)) i += word.length;
    else fail(`expected ${word}`);
  };
  const literal = <T>(word: string, v: T): T => {
    expect(word);
    return v;
  };

  function value(depth: number): unknown {
    if (depth > MAX_DEPTH) fail('nesting too deep');
    skipSpace();
    const c = text[i];
    if (c === '{') return object(depth);
    if (c === '[') return array(depth);
    if (c === '"') return string();
    if (c === 't') return literal('true', true);
    if (c === 'f') return literal('false', false);
    if (c === 'n') return literal('null', null);
    return number();
  }

  function object(depth: number) {
    const out: Record<string, unknown> = {};
    i++;
    skipSpace();
    if (eat('}')) return out;
    for (;;) {
      skipSpace();
      if (text[i] !== '"') fail('expected a key');
      const key = string();
      skipSpace();
      expect(':');
      Object.defineProperty(out, key, {
        value: value(depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      skipSpace();
      if (eat(',')) continue;
      if (eat('}')) return out;
      fail('expected , or }');
    }
  }

  function array(depth: number) {
    const out: unknown[] = [];
    i++;
    skipSpace();
    if (eat(']')) return out;
    for (;;) {
      out.push(value(depth + 1));
      skipSpace();
      if (eat(',')) continue;
      if (eat(']')) return out;
      fail('expected , or ]');
    }
  }

  function string(): string {
    const start = i;
    i++;
    let plain = true;
    for (;;) {
      if (i >= text.length) fail('unterminated string');
      const c = text.charCodeAt(i);
      if (c === 0x22) break;
      if (c < 0x20) fail('control character in string');
      if (c === 0x5c) {
        plain = false;
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail('bad \\u escape');
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) {
          i += 2;
        } else {
          fail('bad escape');
        }
        continue;
      }
      i++;
    }
    i++;
    const raw = text.slice(start, i);
    // The grammar is checked above; JSON.parse only decodes the escapes.
    return plain ? raw.slice(1, -1) : (JSON.parse(raw) as string);
  }

  function number(): number | bigint {
    const match = NUMBER.exec(text.slice(i, i + 400));
    if (!match) fail('unexpected character');
    const literal = match![0];
    i += literal.length;
    const n = Number(literal);
    if (!match![1] && !Number.isSafeInteger(n)) return BigInt(literal);
    return n;
  }

  const result = value(0);
  skipSpace();
  if (i !== text.length) fail('trailing characters');
  return result;
}

const MAX_DEPTH = 64;
// Group 1 is the fraction or exponent: its absence marks an integer literal.
const NUMBER = /^-?(?:0|[1-9]\d*)((?:\.\d+)?(?:[eE][+-]?\d+)?)/;
