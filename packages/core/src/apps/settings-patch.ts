import type { z } from 'zod';
import { LatchkeyError } from '../errors.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * RFC 7396 JSON Merge Patch: objects merge key by key, `null` removes a key, anything else
 * (arrays included) replaces. Settings are one JSON document, so a host changes one field
 * without restating the rest.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Json = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

/**
 * Refuses a patch key the settings schema does not know, naming its path: the schema itself
 * drops unknown keys (stored documents from later versions must still parse), so a typo such
 * as `sesions` would otherwise be accepted and silently do nothing.
 */
export function assertKnownKeys(schema: z.ZodType, patch: unknown, path: string[] = []): void {
  if (!isObject(patch)) return;
  const shape = objectShape(schema);
  // Records (per-route rules) take any key; their values are checked by the schema itself.
  if (!shape) return;
  for (const [key, value] of Object.entries(patch)) {
    const field = [...path, key].join('.');
    const child = shape[key];
    if (!child || !Object.hasOwn(shape, key))
      throw new LatchkeyError('unknown_field', `Unknown setting '${field}'.`, { field });
    assertKnownKeys(child, value, [...path, key]);
  }
}

/** The object shape under defaults and optionals, or undefined when the schema is no object. */
function objectShape(schema: z.ZodType): Record<string, z.ZodType> | undefined {
  let def = schema._zod.def as { type: string; innerType?: z.ZodType; shape?: Record<string, z.ZodType> };
  while (def.innerType) def = def.innerType._zod.def as typeof def;
  return def.type === 'object' ? def.shape : undefined;
}
