#!/usr/bin/env node
import { runCli } from './cli.js';

runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    console.error(`latchkey: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  },
);
