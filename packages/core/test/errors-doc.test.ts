import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { renderErrorsDoc } from '../../../scripts/errors-doc.js';

it('docs/errors.md lists the whole error catalogue (regenerate with npm run docs:errors)', () => {
  const doc = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');
  expect(doc).toBe(renderErrorsDoc());
});
