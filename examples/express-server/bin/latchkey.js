#!/usr/bin/env node
// Runs the TypeScript CLI through tsx with the `source` condition, so no build is needed.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const tsx = import.meta.resolve('tsx');
const { status, signal } = spawnSync(
  process.execPath,
  ['--conditions=source', '--import', tsx, cli, ...process.argv.slice(2)],
  {
    stdio: 'inherit',
  },
);
process.exit(status ?? (signal ? 1 : 0));
