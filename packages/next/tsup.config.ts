import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/edge.ts'],
  format: ['esm'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  // The edge entry carries the import-free credential parsing in itself: it imports jose alone.
  noExternal: ['@latchkey/core/credentials'],
});
