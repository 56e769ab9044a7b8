import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  dts: false, // tsc -p tsconfig.build.json writes the declarations and their maps
  clean: true,
  sourcemap: true,
  target: 'node20',
});
