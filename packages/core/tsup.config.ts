import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    credentials: 'src/host-sessions/credentials.ts',
    jwt: 'src/jwt.ts',
    node: 'src/node-http/index.ts',
  },
  format: ['esm'],
  dts: false, // tsc -p tsconfig.build.json writes the declarations and their maps
  clean: true,
  sourcemap: true,
  target: 'node20',
});
