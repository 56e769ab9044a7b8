import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');
const run = promisify(execFile);

it("runs docs/observability.md's example as written: the request's span and its storage spans", async () => {
  const doc = readFileSync(resolve(root, 'docs/observability.md'), 'utf8');
  const block = /<!-- runnable: observability\.mjs -->\n```js\n([\s\S]*?)```/.exec(doc)?.[1];
  if (!block) throw new Error('docs/observability.md lost its runnable example');
  // In the workspace, from the packages' sources: the packed-tarball tests cover the published form.
  const { stdout } = await run(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', '--input-type=module', '-e', block],
    { cwd: root, env: { ...process.env, LATCHKEY_SECRET: 'doc-example-secret-that-is-long-enough-0123' } },
  );
  expect(stdout).toContain('answered 200');
  expect(stdout).toContain("name: 'POST /v1/auth/users'");
  expect(stdout).toContain("'http.route': '/v1/auth/users'");
  expect(stdout).toContain("'http.response.status_code': 200");
  expect(stdout).toContain("name: 'latchkey.storage users.insert'");
  expect(stdout).not.toContain('ada@example.com');
}, 60_000);
