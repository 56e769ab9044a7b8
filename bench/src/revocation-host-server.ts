import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createLatchkey } from '@latchkey/core';
import { configFromEnv } from '@latchkey/example-express-server/config';
import { openStorage } from '@latchkey/example-express-server/storage';
import { requireSession } from '@latchkey/express';
import express from 'express';
import { benchFactor } from './host-session-app.js';

/**
 * One of the two host processes of the revocation row (revocation-latency.ts): Latchkey on the
 * shared Postgres, `/jwt/me` behind requireSession in jwt mode, and two bench-only routes, `/issue`
 * (a new session of the App's user) and `/revoke` (ends one). The first process creates the App;
 * the second is given it (`BENCH_APP_ID`, `BENCH_USER_ID`) and the same secret, as a second
 * replica of one deployment is. Prints `{ url, app_id, user_id, state }` once its revocation set
 * is live.
 */
const { storage } = await openStorage({ ...configFromEnv(), dataDir: '.' });
const secret = process.env.BENCH_SECRET ?? randomBytes(32).toString('base64url');
const latchkey = createLatchkey({ storage, secret });
let appId = process.env.BENCH_APP_ID;
let userId = process.env.BENCH_USER_ID;
if (!appId || !userId) {
  appId = (
    await latchkey.apps.create({
      name: 'bench revocations',
      settings: { sessions: { jwt_lifetime_seconds: 3600 } },
    })
  ).app_id;
  userId = (
    await latchkey.users.create(appId, {
      email: `bench.revoke.${randomBytes(4).toString('hex')}@example.com`,
    })
  ).user_id;
}
const state = await latchkey.sessions.watchRevocations();

const app = express();
app.disable('x-powered-by');
app.use(express.json());
app.get('/jwt/me', requireSession(latchkey, { app_id: appId, mode: 'jwt' }), (req, res) => {
  res.json({ user_id: req.auth?.user_id });
});
app.post('/issue', async (_req, res) => {
  const issued = await latchkey.sessions.issue(appId, userId, benchFactor, { session_expires_in: 3600 });
  res.json({ session_id: issued.session!.id, session_jwt: issued.session_jwt });
});
app.post('/revoke', async (req, res) => {
  res.json(await latchkey.sessions.revoke(appId, { session_id: req.body.session_id }));
});
app.get('/state', (_req, res) => {
  res.json({ state: latchkey.sessions.revocationState() });
});

const server = app.listen(0, '127.0.0.1', () => {
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  console.log(JSON.stringify({ url, app_id: appId, user_id: userId, secret, state }));
});
process.on('SIGTERM', () => {
  server.close();
  latchkey.close().finally(() => process.exit(0));
});
