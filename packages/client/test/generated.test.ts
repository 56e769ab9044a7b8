import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generatedPath, renderClientTypes } from '../scripts/generate.js';

describe('generated client types', () => {
  it('match the OpenAPI document the server serves today (run `npm run generate -w @latchkey/client` when not)', async () => {
    const committed = readFileSync(generatedPath, 'utf8');
    const fresh = await renderClientTypes();
    expect(committed === fresh, 'src/generated/openapi.ts is stale: regenerate it').toBe(true);
    // Not an empty render: every route of the document is in it.
    expect(fresh).toContain('"/v1/auth/otps/verify": {');
    expect(fresh).toContain("| 'post /v1/auth/wallets/verify'");
  });
});
