import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/** The browser entry as a page would ship it: bundled with its dependencies, minified. */
export async function bundleBrowserEntry(): Promise<string> {
  const result = await build({
    entryPoints: [new URL('../src/index.ts', import.meta.url).pathname],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    conditions: ['source'],
  });
  return result.outputFiles[0]!.text;
}

if (process.argv[1] && new URL(import.meta.url).pathname === process.argv[1]) {
  const code = await bundleBrowserEntry();
  const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
  console.log(
    `@latchkey/client browser entry: ${kib(code.length)} minified, ${kib(gzipSync(code).length)} minified+gzipped`,
  );
}
