/** Deno's entry: the fixture under `Deno.serve` on the loopback port given as the first argument. */
import { handle } from './worker.js';

declare const Deno: {
  args: string[];
  serve(options: { hostname: string; port: number; onListen?: () => void }, handler: typeof handle): unknown;
};

Deno.serve(
  { hostname: '127.0.0.1', port: Number(Deno.args[0]), onListen: () => console.log('listening') },
  handle,
);
