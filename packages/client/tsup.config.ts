import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/server.ts'],
  format: ['esm'],
  // Declarations come from tsc (tsconfig.build.json): the bundled-dts step overflows its stack on
  // the generated OpenAPI types.
  dts: false,
  clean: true,
  sourcemap: true,
  // Browsers, Node 20+, Bun, Deno and edge runtimes: nothing newer than ES2022.
  target: 'es2022',
  platform: 'neutral',
});
