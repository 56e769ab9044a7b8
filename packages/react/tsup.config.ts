import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  dts: false, // tsc -p tsconfig.build.json writes the declarations and their maps
  clean: true,
  sourcemap: true,
  target: 'es2022',
  platform: 'neutral',
  external: ['react', '@latchkey/client'],
  // esbuild keeps the entry's 'use client' directive as the bundle's first line (checked by
  // test/packed-packages.test.ts), so a React Server Components bundler treats it as client code.
});
