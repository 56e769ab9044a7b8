import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', credentials: 'src/host-sessions/credentials.ts' },
  format: ['esm'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
});
