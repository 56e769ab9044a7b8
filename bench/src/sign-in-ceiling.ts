import { createHash, randomBytes, randomUUID } from 'node:crypto';
import express from 'express';
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
     insert into "${schema}".proofs (id) select generate_series(1, 1000);
     create table "${schema}".counters (key text, window_start bigint, count integer not null, primary key (key, window_start));
     create table "${schema}".users (id text primary key, created_at bigint not null);
     create table "${schema}".emails (id text primary key, user_id text not null, address text not null unique);
     create table "${schema}".links (id text primary key, email_id text not null, token_hash text not null unique, expires_at bigint not null);`,
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
  // A magic-link send to a new address, its floor: the address's send counted (one upsert that
  // commits early, as Latchkey's counters do), then the user, the address and the link inserted by
  // one statement that commits durably, the token hashed with SHA-256. No API key check, no App
  // read, no event row, no second window, no email.
  const count = {
    name: 'ceiling-count',
    text: `with early as (select set_config('synchronous_commit', 'off', true))
      insert into "${schema}".counters as c (key, window_start, count) select $1, $2, 1 from early
      on conflict (key, window_start) do update set count = c.count + 1 where c.count < 1000000 returning count`,
  };
  const create = {
    name: 'ceiling-create',
    text: `with u as (insert into "${schema}".users (id, created_at) values ($1, $4) returning id),
      e as (insert into "${schema}".emails (id, user_id, address) select $2, id, $3 from u returning id)
      insert into "${schema}".links (id, email_id, token_hash, expires_at) select $5, id, $6, $4 + 900 from e`,
  };
  app.post('/ceiling/magic-link-send', express.json(), async (req, res) => {
    const { email } = req.body as { email: string };
    const now = Math.floor(Date.now() / 1000);
    await pool.query({ ...count, values: [`send:${email}`, now - (now % 3600)] });
    const token = randomBytes(32).toString('base64url');
    const hash = createHash('sha256').update(token).digest('hex');
    await pool.query({ ...create, values: [randomUUID(), randomUUID(), email, now, randomUUID(), hash] });
    res.json({ email_id: email, status: 'sent' });
  });
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
