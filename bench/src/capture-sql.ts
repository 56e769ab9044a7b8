import { appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

/**
 * For the growth bench's plans: while switched on (SIGUSR2 toggles), every statement the server
 * sends through `pg` is appended to `file` as a JSON line `{ sql, params }`. Off by default, so
 * measuring is not slowed.
 */
export function captureSqlOnSignal(file: string): void {
  let on = false;
  process.on('SIGUSR2', () => {
    on = !on;
  });
  const original = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const [first, params] = args;
    if (on) {
      const text = typeof first === 'string' ? first : (first as { text?: string } | null)?.text;
      const values = Array.isArray(params) ? params : (first as { values?: unknown[] } | null)?.values;
      if (text) appendFileSync(file, `${JSON.stringify({ sql: text, params: values ?? [] })}\n`);
    }
    return original.apply(this, args);
  } as typeof pg.Client.prototype.query;
}

/** Where the server with this pid writes what it captured. */
export const captureFile = (pid: number | undefined) =>
  path.join(tmpdir(), `latchkey-bench-sql-${pid}.jsonl`);
