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

/** Keys that name an object's prototype rather than a setting; assigning one changes the object. */
const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Deeper than any settings document nests (a route rule sits at depth 3). */
const MAX_SETTINGS_DEPTH = 16;

/**
 * Refuses `__proto__`, `constructor` and `prototype` as a key anywhere in a settings input,
 * naming its path. JSON.parse makes them ordinary keys, but a merge assigns `__proto__` as the
 * object's prototype and the schema drops it: the setting would be silently ignored (and under
 * `rate_limits.routes` nothing else catches it). Too deep a nesting, or a cycle from a direct
 * caller, is refused too.
 */
export function assertNoPrototypeKeys(value: unknown, path: string[] = []): void {
  if (typeof value !== 'object' || value === null) return;
  if (path.length > MAX_SETTINGS_DEPTH)
    throw new LatchkeyError('invalid_field', `Settings nest at most ${MAX_SETTINGS_DEPTH} levels.`, {
      field: path.join('.'),
    });
  for (const [key, child] of Object.entries(value)) {
    const at = [...path, key];
    if (PROTOTYPE_KEYS.has(key)) {
      const field = at.join('.');
      throw new LatchkeyError('invalid_field', `Invalid field '${field}': '${key}' is not a setting name.`, {
        field,
      });
    }
    assertNoPrototypeKeys(child, at);
  }
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
