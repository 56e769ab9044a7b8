import { randomBytes } from 'node:crypto';
import type express from 'express';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import type pg from 'pg';

/**
 * The floor of any sign-in that ends in a session, as a bare route on a pool of its own: what
 * no such sign-in can avoid, and nothing else. One single-use proof spent (an indexed UPDATE of
 * one row, committed), one session row inserted (committed), and one ES256 session JWT signed
 * with the key already in memory. No API key check, no App read, no rate counter, no event row,
 * no keyed hash. Its own schema, dropped by `close`.
 */
export async function mountSignInCeiling(app: express.Express, pool: pg.Pool) {
  const schema = `bench_sign_in_ceiling_${randomBytes(4).toString('hex')}`;
  await pool.query(`create schema "${schema}"`);
  await pool.query(
    `create table "${schema}".proofs (id integer primary key, used_at bigint);
     create table "${schema}".sessions (id text primary key, user_id text not null, expires_at bigint not null, created_at bigint not null);
     insert into "${schema}".proofs (id) select generate_series(1, 1000);`,
  );
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const kid = (await exportJWK(publicKey)).x?.slice(0, 8) ?? 'k';
  const spend = {
    name: 'ceiling-spend',
    text: `update "${schema}".proofs set used_at = $2 where id = $1 returning id`,
  };
  const insert = {
    name: 'ceiling-session',
    text: `insert into "${schema}".sessions (id, user_id, expires_at, created_at) values ($1, $2, $3, $4)`,
  };
  let n = 0;
  app.post('/ceiling/sign-in', async (_req, res) => {
    const now = Math.floor(Date.now() / 1000);
    const proof = (n++ % 1000) + 1;
    await pool.query({ ...spend, values: [proof, now] });
    const id = `session-${randomBytes(12).toString('hex')}`;
    await pool.query({ ...insert, values: [id, `user-${proof}`, now + 3600, now] });
    const jwt = await new SignJWT({ sid: id })
      .setProtectedHeader({ alg: 'ES256', kid })
      .setSubject(`user-${proof}`)
      .setIssuedAt(now)
      .setExpirationTime(now + 300)
      .sign(privateKey);
    res.json({ session_id: id, session_jwt: jwt });
  });
  return { close: () => pool.query(`drop schema if exists "${schema}" cascade`) };
}
