import { LatchkeyError } from '../errors.js';

/**
 * What one EIP-712 request may hold. Typed data in use (permits, Seaport orders, Safe
 * transactions) has a handful of struct types and a few dozen fields; these leave room for far
 * more, while keeping what a request costs proportional to its bytes: every struct type's hash
 * covers the definitions of all the types it reaches, so a chain of T types costs T² characters
 * to hash, and the signing library finds those reaches by repeated passes over all the types.
 */
export const TYPED_DATA_LIMITS = {
  /** Struct types in `types` (besides `EIP712Domain`). */
  types: 32,
  /** Fields over all the struct types. */
  fields: 256,
  /** Characters of every type's `encodeType` string (its definition and those of the types it reaches), summed. */
  encodedTypeChars: 16_384,
  /** Characters of the whole typed data as JSON: what a `sign_message` message may have. */
  jsonChars: 100_000,
} as const;

type Types = Record<string, { name: string; type: string }[]>;

const tooLarge = (what: string, field: string) =>
  new LatchkeyError('invalid_field', `The typed data is too large: ${what}.`, { field });

/** The struct type a field's type names (`Mail[][3]` → `Mail`), when it names one of `types`. */
const structOf = (type: string, types: Types): string | undefined => {
  const bracket = type.indexOf('[');
  const base = bracket < 0 ? type : type.slice(0, bracket);
  return Object.hasOwn(types, base) ? base : undefined;
};

/**
 * Checks typed data against `TYPED_DATA_LIMITS` and returns its `types` with every type after the
 * types it reaches (cycles aside), without `EIP712Domain`: the signing library then finds each
 * type's reach in one pass instead of one per level. Linear in the types' size: each type's reach
 * is walked once per type, at most 32 × 256 steps.
 */
export function boundTypedData(typed: { types: Types }, json: string): Types {
  if (json.length > TYPED_DATA_LIMITS.jsonChars)
    throw tooLarge(`at most ${TYPED_DATA_LIMITS.jsonChars} characters as JSON`, 'typed_data');
  const { EIP712Domain: _implicit, ...types } = typed.types;
  const names = Object.keys(types);
  if (names.length > TYPED_DATA_LIMITS.types)
    throw tooLarge(`at most ${TYPED_DATA_LIMITS.types} types`, 'typed_data.types');
  let fields = 0;
  for (const name of names) fields += types[name]!.length;
  if (fields > TYPED_DATA_LIMITS.fields)
    throw tooLarge(`at most ${TYPED_DATA_LIMITS.fields} fields over all types`, 'typed_data.types');

  // `Name(type name,…)`: the length of one type's own definition.
  const ownLength = new Map<string, number>();
  for (const name of names) {
    let length = name.length + 2 + Math.max(0, types[name]!.length - 1);
    for (const f of types[name]!) length += f.type.length + 1 + f.name.length;
    ownLength.set(name, length);
  }
  let encodedTypeChars = 0;
  for (const name of names) {
    const reached = new Set([name]);
    const stack = [name];
    while (stack.length > 0) {
      for (const f of types[stack.pop()!]!) {
        const struct = structOf(f.type, types);
        if (struct !== undefined && !reached.has(struct)) {
          reached.add(struct);
          stack.push(struct);
        }
      }
    }
    for (const r of reached) encodedTypeChars += ownLength.get(r)!;
    if (encodedTypeChars > TYPED_DATA_LIMITS.encodedTypeChars)
      throw tooLarge(
        `the types' encodings (each type with the types it uses) exceed ${TYPED_DATA_LIMITS.encodedTypeChars} characters`,
        'typed_data.types',
      );
  }

  // Dependencies first (depth-first post-order); the hashes do not depend on the order.
  const ordered: Array<[string, Types[string]]> = [];
  const placed = new Set<string>();
  const place = (root: string) => {
    const stack: Array<{ name: string; next: number }> = [{ name: root, next: 0 }];
    placed.add(root);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const fieldsOfTop = types[top.name]!;
      if (top.next < fieldsOfTop.length) {
        const struct = structOf(fieldsOfTop[top.next++]!.type, types);
        if (struct !== undefined && !placed.has(struct)) {
          placed.add(struct);
          stack.push({ name: struct, next: 0 });
        }
      } else {
        stack.pop();
        ordered.push([top.name, fieldsOfTop]);
      }
    }
  };
  for (const name of names) if (!placed.has(name)) place(name);
  // fromEntries defines each name as an own property, `__proto__` included.
  return Object.fromEntries(ordered);
}
