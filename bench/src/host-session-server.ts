import { mkdtemp } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { requireSession } from '@latchkey/express';
import express from 'express';
import pg from 'pg';
import { hostSessionApp } from './host-session-app.js';
import { mountSignInCeiling } from './sign-in-ceiling.js';

/**
 * A host Express app with Latchkey embedded, its own routes behind `requireSession`: `/jwt/me`
 * (the JWT's signature only), `/token/me` (storage read per request), `/jwt/invoices` (jwt mode,
 * an organization session whose roles grant `invoices:read`), and `/plain` with no
 * middleware (what the embedding process costs before any session check). Prints `{ url, … }`
 * with a session's credentials when ready, like the other bench servers.
 */
const host = await hostSessionApp(await mkdtemp(path.join(tmpdir(), 'latchkey-bench-host-')));
const who = (req: express.Request, res: express.Response) => {
  res.json({ user_id: req.auth?.user_id });
};
const app = express();
app.disable('x-powered-by');
app.get('/plain', (_req, res) => {
  res.json({ status: 'ok' });
});
let signInCeiling: { close: () => Promise<unknown> } | undefined;
// Token mode's ceiling: the one indexed read of the session row by its token's hash that a token
// check cannot avoid, on a pool of its own, and nothing else (Postgres only).
if (process.env.DATABASE_URL) {
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
  const { rows } = await pool.query('select app_id, token_hash from sessions where id = $1', [
    host.session_id,
  ]);
  const { app_id, token_hash } = rows[0] as { app_id: string; token_hash: string };
  const read = {
    name: 'ceiling-session-read',
    text: 'select user_id, expires_at, revoked_at from sessions where app_id = $1 and token_hash = $2',
  };
  app.get('/ceiling/token', async (_req, res) => {
    const found = await pool.query({ ...read, values: [app_id, token_hash] });
    res.json({ user_id: (found.rows[0] as { user_id: string }).user_id });
  });
  signInCeiling = await mountSignInCeiling(app, pool);
}
app.get('/jwt/me', requireSession(host.latchkey, { app_id: host.appId, mode: 'jwt' }), who);
app.get('/token/me', requireSession(host.latchkey, { app_id: host.appId, mode: 'token' }), who);
// An organization's route: a session scoped to one whose member's roles grant the permission.
app.get(
  '/jwt/invoices',
  requireSession(host.latchkey, { app_id: host.appId, mode: 'jwt', permission: 'invoices:read' }),
  who,
);

const server = app.listen(0, '127.0.0.1', () => {
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { session_jwt, session_token, organization_session_jwt } = host;
  console.log(JSON.stringify({ url, session_jwt, session_token, organization_session_jwt }));
});
process.on('SIGTERM', () => {
  server.close();
  Promise.allSettled([signInCeiling?.close(), host.close()]).finally(() => process.exit(0));
});
