import { defineConfig } from 'tsup';

export default defineConfig({
  // index: what a host imports (serveAdminSocket); bin: the command, run by bin/latchkey.js.
  entry: ['src/index.ts', 'src/bin.ts'],
  format: ['esm'],
  dts: false, // tsc -p tsconfig.build.json writes the declarations and their maps
  clean: true,
  sourcemap: true,
  target: 'node20',
});
