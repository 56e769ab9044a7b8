import { z } from '@hono/zod-openapi';

const isPlainObject = (v: unknown): v is object => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether `v` has more than `max` own enumerable keys; stops counting at max + 1. */
function moreKeysThan(v: object, max: number): boolean {
  let n = 0;
  for (const key in v) if (Object.hasOwn(v, key) && ++n > max) return true;
  return false;
}

/**
 * A record of at most `maxKeys` entries, refused on its key count before any entry is parsed:
 * zod parses every entry of a record (and reports every bad one) before a size check could run,
 * which for a body of tens of thousands of keys costs more than parsing the JSON did.
 */
export function boundedRecord<K extends z.ZodString, V extends z.ZodType>(key: K, value: V, maxKeys: number) {
  return z.preprocess(
    (v, ctx) => {
      if (isPlainObject(v) && moreKeysThan(v, maxKeys))
        ctx.addIssue({
          code: 'too_big',
          origin: 'object',
          maximum: maxKeys,
          input: v,
          message: `At most ${maxKeys} keys.`,
        });
      return v;
    },
    z.record(key, value),
  );
}
