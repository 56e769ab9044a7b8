import { LatchkeyError } from '../errors.js';

// NUL cannot be stored in Postgres text, and an unpaired surrogate is not Unicode at all: both are
// refused at the door with a 400, whatever route or field they arrive in.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const isStorableText = (s: string): boolean => !s.includes('\u0000') && !LONE_SURROGATE.test(s);

/**
 * The dotted path of the first string (key or value) in `value` that cannot be stored, or
 * undefined. Iterative, so a body nested a hundred thousand levels deep cannot overflow the stack.
 */
export function findUnstorableText(value: unknown): string | undefined {
  // Paths are built only for the culprit: building one per node would be quadratic in depth.
  interface Node {
    item: unknown;
    key: string;
    parent: Node | undefined;
  }
  const pathOf = (node: Node | undefined): string => {
    const keys: string[] = [];
    for (let n = node; n?.parent; n = n.parent) keys.push(n.key);
    return keys.reverse().join('.');
  };
  const stack: Node[] = [{ item: value, key: '', parent: undefined }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (typeof node.item === 'string') {
      if (!isStorableText(node.item)) return pathOf(node);
    } else if (node.item !== null && typeof node.item === 'object') {
      for (const [key, item] of Object.entries(node.item)) {
        const child = { item, key, parent: node };
        if (!isStorableText(key)) return pathOf(child);
        stack.push(child);
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
