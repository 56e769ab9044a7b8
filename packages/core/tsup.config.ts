import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    credentials: 'src/host-sessions/credentials.ts',
    jwt: 'src/jwt.ts',
    // Node only (node:fs): its own entry, so the main one stays loadable on edge runtimes.
    'breached-passwords-file': 'src/password-auth/breach/local-file.ts',
    node: 'src/node-http/index.ts',
  },
  format: ['esm'],
  dts: false, // tsc -p tsconfig.build.json writes the declarations and their maps
  clean: true,
  sourcemap: true,
  target: 'node20',
});
