import type { z } from 'zod';
import { LatchkeyError } from '../errors.js';
import { expectation, mostSpecificIssue, readablePath } from './zod-issue.js';

/**
 * Turns zod's issues into the catalogue's 400: a missing field, an unknown field, or a field of
 * the wrong type, format or range, always naming the field at its full path (inside unions too)
 * and what it expects. `error_field` is the dotted path (`items.3.to`); the message reads
 * `items[3].to`.
 */
export function validationError(error: z.ZodError, target: string, input: unknown): LatchkeyError {
  const located = mostSpecificIssue(error.issues, (path) => valueAt(input, path) !== undefined);
  if (!located) return new LatchkeyError('invalid_field');
  const { issue, path: at } = located;
  const where = target === 'json' ? '' : `${target} `;
  if (issue.code === 'unrecognized_keys') {
    const keyPath = [...at, issue.keys[0] ?? ''];
    return new LatchkeyError('unknown_field', `Unknown ${where}field '${readablePath(keyPath)}'.`, {
      field: keyPath.map(String).join('.'),
    });
  }
  const field = at.map(String).join('.');
  if (field !== '' && valueAt(input, at) === undefined) {
    return new LatchkeyError('missing_field', `Missing required ${where}field '${readablePath(at)}'.`, {
      field,
    });
  }
  if (issue.code === 'invalid_type' && field === '') {
    return new LatchkeyError(
      'invalid_field',
      `The ${target === 'json' ? 'body' : target} must be a JSON object.`,
    );
  }
  return new LatchkeyError(
    'invalid_field',
    `Invalid ${where}field '${readablePath(at)}': ${expectation(issue)}`,
    {
      field,
    },
  );
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
