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
  // Bundling drops a module's own directive: the bundle says it once, first, so the React Server
  // Components bundlers (Next's) treat every export as client code.
  banner: { js: "'use client';" },
});
