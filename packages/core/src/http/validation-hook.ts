import type { z } from 'zod';
import { LatchkeyError } from '../errors.js';

/**
 * Turns the first zod issue into the catalogue's 400: a missing field, an unknown field, or a
 * field of the wrong type, format or range, always naming the field.
 */
export function validationError(error: z.ZodError, target: string, input: unknown): LatchkeyError {
  const issue = error.issues[0];
  if (!issue) return new LatchkeyError('invalid_field');
  const path = issue.path.map(String).join('.');
  const where = target === 'json' ? '' : `${target} `;
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    const field = path ? `${path}.${key}` : key;
    return new LatchkeyError('unknown_field', `Unknown ${where}field '${field}'.`, { field });
  }
  if (path !== '' && valueAt(input, issue.path) === undefined) {
    return new LatchkeyError('missing_field', `Missing required ${where}field '${path}'.`, { field: path });
  }
  if (issue.code === 'invalid_type' && path === '') {
    return new LatchkeyError(
      'invalid_field',
      `The ${target === 'json' ? 'body' : target} must be a JSON object.`,
    );
  }
  return new LatchkeyError('invalid_field', `Invalid ${where}field '${path}': ${issue.message}`, {
    field: path,
  });
}

// zod 4 leaves the offending input out of its issues, so look it up to tell missing from wrong.
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}
