import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { type Router as ExpressRouter, Router } from 'express';

export const CLIENT_SCRIPT = '/assets/latchkey-client.js';

const exampleDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * @latchkey/client's browser entry bundled from its TypeScript source (the `source` condition),
 * once at start-up: a fresh clone serves it with no build step, and the pages import it as a
 * module like any host's bundled script.
 */
export async function clientBundle(): Promise<ExpressRouter> {
  const result = await build({
    stdin: { contents: "export * from '@latchkey/client';", resolveDir: exampleDir, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    conditions: ['source'],
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.text;
  const router = Router();
  router.get(CLIENT_SCRIPT, (_req, res) => {
    res.type('text/javascript').set('cache-control', 'no-cache').send(code);
  });
  return router;
}
