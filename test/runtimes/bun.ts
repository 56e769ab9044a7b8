/** Bun's entry: the fixture under `Bun.serve` on the loopback port given as the first argument. */
import { handle } from './worker.js';

declare const Bun: {
  argv: string[];
  serve(options: { hostname: string; port: number; fetch: typeof handle }): unknown;
};

Bun.serve({ hostname: '127.0.0.1', port: Number(Bun.argv[2]), fetch: handle });
