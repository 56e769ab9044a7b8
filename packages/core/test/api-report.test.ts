import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiReports, publishedPackages } from '../../../scripts/api-report.js';

/**
 * The public API of every published package is pinned by its committed api-report.md: an
 * export added or removed, or a signature changed, fails here until `npm run api:report` is
 * run and the diff is reviewed (and a changeset written). New packages are covered as they come.
 */
describe('public API reports', () => {
  const reports = apiReports();

  it('covers every non-private package under packages/', () => {
    const names = publishedPackages().map((p) => p.name);
    expect(names).toContain('@latchkey/core');
    expect(reports.size).toBe(names.length);
  });

  for (const [file, text] of reports) {
    it(`matches ${relative(process.cwd(), file)}`, () => {
      const committed = existsSync(file) ? readFileSync(file, 'utf8') : '(missing: run npm run api:report)';
      expect(text, 'the public API changed: run `npm run api:report`, review the diff, add a changeset').toBe(
        committed,
      );
    });
  }
});
