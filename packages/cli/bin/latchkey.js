#!/usr/bin/env node
// The `latchkey` command. Installed from npm it runs the built dist/bin.js. In the Latchkey
// repository itself (tsconfig.json beside this folder, never published), where every package is
// used from its TypeScript sources and nothing needs building, it runs src/bin.ts under tsx.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

if (existsSync(new URL('../tsconfig.json', import.meta.url))) {
  const source = fileURLToPath(new URL('../src/bin.ts', import.meta.url));
  const { status, signal } = spawnSync(
    process.execPath,
    ['--conditions=source', '--import', import.meta.resolve('tsx'), source, ...process.argv.slice(2)],
    { stdio: 'inherit' },
  );
  process.exit(status ?? (signal ? 1 : 0));
} else {
  await import('../dist/bin.js');
}
