import { LatchkeyError } from '../errors.js';

// NUL cannot be stored in Postgres text, and an unpaired surrogate is not Unicode at all: both are
// refused at the door with a 400, whatever route or field they arrive in.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const isStorableText = (s: string): boolean => !s.includes('\u0000') && !LONE_SURROGATE.test(s);

/**
 * Whether JSON text can hold unstorable text at all: a NUL only arrives as the escape `\u0000`
 * (raw control characters are not JSON), an unpaired surrogate only as an escape of one or as a
 * surrogate in the text itself. Most bodies have neither, and skip the walk below.
 */
export const mayHoldUnstorableText = (json: string): boolean => MAYBE_UNSTORABLE.test(json);
const MAYBE_UNSTORABLE = /\\u(?:0000|[dD][89abcdefABCDEF])|[\uD800-\uDFFF]/;

/**
 * The dotted path of the first string (key or value) in `value` that cannot be stored, or
 * undefined. Iterative, so a body nested a hundred thousand levels deep cannot overflow the stack;
 * only strings and containers are visited, arrays by index, so a body of a million numbers costs
 * a loop over them and nothing more.
 */
export function findUnstorableText(value: unknown): string | undefined {
  // Paths are built only for the culprit: building one per node would be quadratic in depth.
  interface Node {
    item: unknown;
    key: string | number;
    parent: Node | undefined;
  }
  const pathOf = (node: Node | undefined): string => {
    const keys: string[] = [];
    for (let n = node; n?.parent; n = n.parent) keys.push(String(n.key));
    return keys.reverse().join('.');
  };
  const visited = (item: unknown) => typeof item === 'string' || (item !== null && typeof item === 'object');
  const stack: Node[] = [{ item: value, key: '', parent: undefined }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const item = node.item;
    if (typeof item === 'string') {
      if (!isStorableText(item)) return pathOf(node);
    } else if (Array.isArray(item)) {
      for (let i = 0; i < item.length; i++)
        if (visited(item[i])) stack.push({ item: item[i], key: i, parent: node });
    } else if (item !== null && typeof item === 'object') {
      for (const key of Object.keys(item)) {
        const child = { item: (item as Record<string, unknown>)[key], key, parent: node };
        if (!isStorableText(key)) return pathOf(child);
        if (visited(child.item)) stack.push(child);
      }
    }
  }
  return undefined;
}

export function unstorableText(field: string): LatchkeyError {
  return new LatchkeyError(
    'invalid_field',
    `Invalid field '${field}': it contains a NUL character or malformed Unicode.`,
    { field },
  );
}
