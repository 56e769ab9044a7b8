import { z } from 'zod';
import { LatchkeyError } from '../errors.js';
import { validationError } from '../http/validation-hook.js';
import { type AppSettings, appSettingsSchema } from './schema.js';
import { SETTINGS_LIMITS } from './settings-limits.js';
import { assertNoPrototypeKeys } from './settings-patch.js';
import { settingsWriteProblem } from './settings-rules.js';

/**
 * Settings as they may be stored: the schema every read parses, then the rules only writes
 * keep (settings-rules.ts) and the size of the whole document. `at` is where the settings sit
 * in the caller's input (`['settings']` for createApp), for the field named in a 400.
 */
export function parseSettingsForWrite(input: unknown, at: string[] = []): AppSettings {
  assertNoPrototypeKeys(input, at);
  // Measured before parsing as well, so an oversized input costs no parse.
  assertDocumentSize(input, at);
  const parsed = appSettingsSchema.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({ ...issue, path: [...at, ...issue.path] }));
    throw validationError(new z.ZodError(issues), 'json', nestAt(input, at));
  }
  const problem = settingsWriteProblem(parsed.data);
  if (problem) {
    const field = [...at, ...problem.path].join('.');
    throw new LatchkeyError('invalid_field', `Invalid field '${field}': ${problem.message}.`, { field });
  }
  assertDocumentSize(parsed.data, at);
  return parsed.data;
}

function assertDocumentSize(document: unknown, at: string[]): void {
  const max = SETTINGS_LIMITS.documentJsonChars;
  const field = at.length > 0 ? at.join('.') : undefined;
  let chars: number;
  try {
    chars = JSON.stringify(document)?.length ?? 0;
  } catch {
    throw new LatchkeyError('invalid_field', 'The settings must be JSON data.', { field });
  }
  if (chars > max)
    throw new LatchkeyError(
      'invalid_field',
      `The settings document is ${chars} characters of JSON; at most ${max}.`,
      { field },
    );
}

const nestAt = (input: unknown, at: string[]): unknown =>
  at.reduceRight<unknown>((inner, key) => ({ [key]: inner }), input);
