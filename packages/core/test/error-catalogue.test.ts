import { describe, expect, it, vi } from 'vitest';
import { ownedErrors } from '../../../scripts/error-catalogue.js';
import { capabilityErrors } from '../src/capability-errors.js';
import { errorCatalogue, genericErrors } from '../src/errors.js';

const entry = { status: 400, message: 'A test error.' };

describe('the error catalogue', () => {
  it("holds a copy of every capability's errors.ts, in the list's order (regenerate with npm run regenerate)", () => {
    const owned = Object.assign({}, ...ownedErrors().map(([, table]) => table));
    expect(Object.entries(capabilityErrors)).toEqual(Object.entries(owned));
    expect(Object.keys(errorCatalogue)).toEqual([...Object.keys(genericErrors), ...Object.keys(owned)]);
  });

  it('refuses an error type declared twice, by two capabilities or by one and errors.ts', () => {
    expect(() =>
      ownedErrors([
        { name: 'first', errors: { test_error: entry } },
        { name: 'second', errors: { test_error: entry } },
      ]),
    ).toThrow('error type test_error is declared by capability first and by capability second');
    expect(() => ownedErrors([{ name: 'first', errors: { invalid_field: entry } }])).toThrow(
      'error type invalid_field is declared by errors.ts and by capability first',
    );
    expect(ownedErrors([{ name: 'first', errors: { test_error: entry } }, { name: 'second' }])).toEqual([
      ['first', { test_error: entry }],
      ['second', {}],
    ]);
  });

  it('gives every LatchkeyError its status from errors.ts alone, no capability loaded first', async () => {
    // A fresh copy of errors.ts and what it imports, as a storage adapter or a service built in a
    // test without createLatchkey would load it: nothing registers the capabilities' types.
    vi.resetModules();
    const fresh = await import('../src/errors.js');
    expect(fresh.errorCatalogue).not.toBe(errorCatalogue);
    expect(new fresh.LatchkeyError('otp_code_invalid').status).toBe(401);
    expect(new fresh.LatchkeyError('session_not_found').status).toBe(401);
    for (const [type, { status, message }] of Object.entries(errorCatalogue)) {
      const e = new fresh.LatchkeyError(type as keyof typeof errorCatalogue);
      expect([e.status, e.message], type).toEqual([status, message]);
    }
  });
});
