import type { ChildProcess } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { captureFile } from './capture-sql.js';
import { measure, type Target } from './measure.js';

export interface ExplainedQuery {
  sql: string;
  plan: string;
}

/**
 * The plan of every statement each row's request runs: one request per row with the server's
 * SQL capture on, then `EXPLAIN (ANALYZE, BUFFERS)` of each captured statement with its own
 * parameters, inside a transaction that is rolled back (so writes leave nothing behind).
 */
/**
 * A write the request already made (the same new id) cannot run again: its plan is then shown
 * without running it, with the reason.
 */
async function explain(client: pg.Client, sql: string, params: unknown[]): Promise<string> {
  const plan = (res: pg.QueryResult) => res.rows.map((r) => r['QUERY PLAN']).join('\n');
  await client.query('begin');
  try {
    return plan(await client.query(`explain (analyze, buffers) ${sql}`, params));
  } catch (err) {
    await client.query('rollback');
    await client.query('begin');
    const shown = plan(await client.query(`explain ${sql}`, params));
    return `(not run again: ${(err as Error).message})\n${shown}`;
  } finally {
    await client.query('rollback');
  }
}

export async function explainCaptured(
  server: ChildProcess,
  targets: Target[],
  db: { databaseUrl: string; schema: string },
): Promise<Array<{ row: string; queries: ExplainedQuery[] }>> {
  const file = captureFile(server.pid);
  const client = new pg.Client({ connectionString: db.databaseUrl });
  await client.connect();
  await client.query(`set search_path to "${db.schema}"`);
  const out: Array<{ row: string; queries: ExplainedQuery[] }> = [];
  try {
    for (const target of targets) {
      await rm(file, { force: true });
      server.kill('SIGUSR2');
      await sleep(200);
      await measure({ ...target, amount: 1 }, { duration: 1, connections: 1 });
      await sleep(200);
      server.kill('SIGUSR2');
      const captured = (await readFile(file, 'utf8').catch(() => ''))
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { sql: string; params: unknown[] })
        .filter((q) => !/^\s*(begin|commit|rollback|savepoint|release|set )/i.test(q.sql));
      const queries: ExplainedQuery[] = [];
      for (const q of captured) {
        queries.push({ sql: q.sql, plan: await explain(client, q.sql, q.params) });
      }
      out.push({ row: target.name, queries });
    }
  } finally {
    await client.end();
    await rm(file, { force: true });
  }
  return out;
}
