import { createHash, randomBytes } from 'node:crypto';
import express, { type Router } from 'express';
import pg from 'pg';
import type { Target } from './measure.js';
import { SIGNERS, type Signer } from './signing-ceilings.js';

/**
 * The signing ceilings plus the one thing a custodial signature cannot skip either: its audit
 * entry made durable before the answer. Each request signs as its ceiling route does, then
 * inserts one row the size and shape of a `wallet_signatures` row (no foreign keys, no event) into
 * a table of its own on the run's Postgres, and answers once that insert has committed. Inserts
 * in flight are grouped as Latchkey groups its audit entries (kysely-postgres batched.ts): one
 * statement at a time on one connection; whatever arrived meanwhile goes in the next statement,
 * at most 100 rows. So a Latchkey signing row ÷ its bound says what Latchkey adds beyond the
 * cryptography and the commit every request must wait for.
 */
export async function signingBounds(
  databaseUrl: string,
): Promise<{ router: Router; table: string; close(): Promise<void> }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  // A table per process: two runs on one database never share it; dropped when the server stops.
  const table = `bench_bound_audit_${randomBytes(4).toString('hex')}`;
  await client.query(`create table ${table} (
    id text primary key,
    seq bigint generated always as identity,
    app_id text not null, wallet_id text not null, method text not null, chain text not null,
    payload_digest text not null, decision text not null, policy_id text, rule_index integer,
    rule_kind text, error_type text, key_kind text not null, created_at bigint not null)`);
  await client.query(`create index on ${table} (app_id, wallet_id, seq)`);
  const insert = {
    name: `insert_${table}`,
    text: `insert into ${table} (id, app_id, wallet_id, method, chain, payload_digest, decision, policy_id,
      rule_index, rule_kind, error_type, key_kind, created_at)
      select id, app_id, wallet_id, method, chain, payload_digest, decision, policy_id, rule_index,
        rule_kind, error_type, key_kind, created_at
      from jsonb_to_recordset($1::jsonb) as (id text, app_id text, wallet_id text, method text,
        chain text, payload_digest text, decision text, policy_id text, rule_index integer,
        rule_kind text, error_type text, key_kind text, created_at bigint)`,
  };
  const write = groupCommit((rows: object[]) =>
    client.query({ ...insert, values: [JSON.stringify(rows)] }).then(() => undefined),
  );

  const router = express.Router();
  router.use(express.json());
  for (const [path, sign] of Object.entries(SIGNERS) as [string, Signer][]) {
    router.post(`/sign/${path}`, async (req, res, next) => {
      try {
        const message = new TextEncoder().encode(String(req.body?.message ?? ''));
        const signature = sign(message);
        await write({
          id: `sig_${randomBytes(12).toString('hex')}`,
          app_id: 'app_bench',
          wallet_id: 'wallet_bench',
          method: 'sign_message',
          chain: path,
          payload_digest: createHash('sha256').update(message).digest('hex'),
          decision: 'allowed',
          policy_id: null,
          rule_index: null,
          rule_kind: null,
          error_type: null,
          key_kind: 'secret',
          created_at: Math.floor(Date.now() / 1000),
        });
        res.json({ signature });
      } catch (err) {
        next(err);
      }
    });
  }
  return {
    router,
    table,
    async close() {
      await client.query(`drop table if exists ${table}`);
      await client.end();
    },
  };
}

/**
 * Group commit, one statement in flight: a row that arrives while a statement runs waits for it
 * and goes in the next one with every other row that arrived meanwhile (up to 100); a row that
 * arrives when none runs starts one at once. Each caller settles when its own statement commits.
 */
function groupCommit<T>(runAll: (items: T[]) => Promise<void>): (item: T) => Promise<void> {
  let queue: { item: T; done: (err?: unknown) => void }[] = [];
  let running = false;
  const pump = () => {
    if (running || queue.length === 0) return;
    const group = queue.slice(0, 100);
    queue = queue.slice(100);
    running = true;
    runAll(group.map((w) => w.item))
      .then(
        () => {
          for (const w of group) w.done();
        },
        (err) => {
          for (const w of group) w.done(err);
        },
      )
      .finally(() => {
        running = false;
        pump();
      });
  };
  return (item) =>
    new Promise<void>((resolve, reject) => {
      queue.push({ item, done: (err) => (err === undefined ? resolve() : reject(err)) });
      pump();
    });
}

/** The bound rows, one beside each signing ceiling row. */
export function signingBoundTargets(base: string): Target[] {
  const body = { message: 'Sign in to example.com\nNonce: 8f2a61c0' };
  return Object.entries(BOUND_CHAINS).map(([path, chain]) => ({
    name: `bound: bare Express route + sign_message ${chain} primitive + one durable audit insert`,
    url: `${base}/sign/${path}`,
    method: 'POST',
    body,
  }));
}

/** The route path of each signer and the chain(s) its rows are named after. */
export const BOUND_CHAINS: Record<keyof typeof SIGNERS, string> = {
  ethereum: 'ethereum',
  bitcoin: 'bitcoin',
  DOT: 'DOT',
  ed25519: 'solana/XLM',
};
