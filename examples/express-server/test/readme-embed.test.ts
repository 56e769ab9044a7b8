/**
 * README's "Embed it" Express snippet, run as written: taken from README.md, given the Express app
 * it assumes, and mounted; a passcode sent through it must reach the sender it configures. Needs
 * the real Postgres the snippet names (DATABASE_URL).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const repo = new URL('../../../', import.meta.url).pathname;

/** The first ```ts block after the "## Embed it" heading. */
function embedSnippet(): string {
  const readme = readFileSync(join(repo, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Embed it'));
  const block = /```ts\n([\s\S]*?)```/.exec(section);
  if (!block?.[1]) throw new Error('README.md has no ts block under "## Embed it"');
  return block[1];
}

describe.skipIf(!process.env.DATABASE_URL)("README's Embed it snippet", () => {
  it('runs as written and delivers a passcode through the sender it configures', async () => {
    const dir = new URL('.', import.meta.url).pathname;
    const module = join(dir, `.readme-embed-${randomBytes(4).toString('hex')}.ts`);
    const cwd = process.cwd();
    process.env.LATCHKEY_SECRET ??= randomBytes(24).toString('hex');
    writeFileSync(
      module,
      `import express from 'express';\nconst app = express();\n${embedSnippet()}\nexport { app, latchkey };\n`,
    );
    const { app, latchkey } = await import(/* @vite-ignore */ module);
    const server = app.listen(0, '127.0.0.1');
    try {
      await new Promise((resolve) => server.once('listening', resolve));
      const keys = await latchkey.apps.create({ name: 'readme' });
      const email = `readme.${randomBytes(4).toString('hex')}@example.com`;
      const res = await fetch(
        `http://127.0.0.1:${(server.address() as AddressInfo).port}/auth/v1/auth/otps/email/login_or_create`,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${keys.public_token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ email }),
        },
      );
      expect(res.status, await res.clone().text()).toBe(200);
      const outbox = readFileSync(join(cwd, '.latchkey/outbox.jsonl'), 'utf8');
      expect(outbox).toContain(email);
    } finally {
      server.close();
      await latchkey.close();
      rmSync(module, { force: true });
    }
  });
});
