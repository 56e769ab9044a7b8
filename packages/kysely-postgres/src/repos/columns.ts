/** Conversions between column values and record fields, shared by the repositories. */

/** int8 arrives as a string (pg), a number (PGlite) or a bigint (custom parsers). */
export const toSeconds = (value: string | number | bigint): number => Number(value);

export const toNullableSeconds = (value: string | number | bigint | null): number | null =>
  value === null ? null : Number(value);

/** json(b) arrives parsed, unless a host's type parsers leave it as text. */
export const fromJson = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : value);

/**
 * A deep copy of parsed JSON (arrays, plain objects and primitives): for the small documents a
 * row holds, several times cheaper than structuredClone. Keys are defined, not assigned, so a
 * `__proto__` key stays a key.
 */
export function copyJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyJson);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, copyJson(v)]));
}

/** Written as text, so arrays stay JSON arrays (pg would send a JS array as a Postgres array). */
export const toJson = (value: unknown): string => JSON.stringify(value);

/** Drops keys whose value is undefined, so a patch sets only what it names. */
export function definedOnly<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<T>;
}
