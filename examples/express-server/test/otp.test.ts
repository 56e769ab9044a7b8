import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { readOutbox } from '@latchkey/senders';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, uniqueEmail } from './api.js';
import { dumpDatabase, type StorageTarget } from './database.js';
import { serverForFile } from './file-server.js';
import type { SpawnedServer } from './spawn-server.js';

const file = serverForFile();
let server: SpawnedServer;
let target: StorageTarget;
beforeAll(() => {
  server = file.server();
  target = file.target();
});

/** What the flows below handled in plain text, which the database must not hold. */
const seen = {
  codes: [] as string[],
  sessionTokens: [] as string[],
  sessionJwts: [] as string[],
  /** TOTP secrets, recovery codes, magic-link tokens, imported keys. */
  other: {} as Record<string, string>,
};
const email = uniqueEmail('otp');
const phone = `+1415555${String(Math.floor(Math.random() * 10_000)).padStart(4, '0')}`;

/** The code of the newest outbox message to `to`. */
async function codeSentTo(to: string, channel: 'email' | 'sms'): Promise<string> {
  const entries = (await readOutbox(path.join(server.dataDir, 'outbox.jsonl'))).filter(
    (e) => e.to === to && e.channel === channel,
  );
  const entry = entries.at(-1);
  expect(entry, `no ${channel} to ${to} in the outbox`).toBeDefined();
  expect(entry!.app_id).toBe(server.keys.app_id);
  expect(entry!.code).toMatch(/^\d{6}$/);
  return entry!.code!;
}

/** login_or_create with the public token, then verify the code from the outbox into a session. */
async function logIn(channel: 'email' | 'sms', address: string) {
  const [route, field] =
    channel === 'email'
      ? ['/v1/auth/otps/email/login_or_create', 'email']
      : ['/v1/auth/otps/sms/login_or_create', 'phone_number'];
  const sent = await call(server.url, 'POST', route, {
    key: server.keys.public_token,
    body: { [field]: address },
  });
  expect(sent.status).toBe(200);
  expect(sent.body).toMatchObject({ user_created: true });
  const { method_id, user_id } = sent.body as { method_id: string; user_id: string };

  const code = await codeSentTo(address, channel);
  seen.codes.push(code);
  const verified = await call(server.url, 'POST', '/v1/auth/otps/verify', {
    key: server.keys.public_token,
    body: { method_id, otp: code, session_expires_in: 60 },
  });
  expect(verified.status).toBe(200);
  expect(verified.body).toMatchObject({
    method_id,
    user_id,
    method_type: channel === 'email' ? 'email' : 'phone_number',
  });
  const { session_token, session_jwt } = verified.body as { session_token: string; session_jwt: string };
  expect(session_token).toEqual(expect.any(String));
  expect(session_jwt).toEqual(expect.any(String));
  seen.sessionTokens.push(session_token);
  seen.sessionJwts.push(session_jwt);
  return { user_id, session_token, session_jwt };
}

const authenticate = (body: Record<string, unknown>) =>
  call(server.url, 'POST', '/v1/auth/sessions/authenticate', { key: server.keys.public_token, body });

describe('OTP login and sessions over HTTP', () => {
  it('logs in by email: session JWT verifies against the JWKS URL; revocation ends the session', async () => {
    const { user_id, session_token, session_jwt } = await logIn('email', email);

    const jwks = createRemoteJWKSet(new URL(`${server.url}/v1/auth/sessions/jwks/${server.keys.app_id}`));
    const { payload } = await jwtVerify(session_jwt, jwks, {
      audience: server.keys.app_id,
      issuer: 'latchkey',
    });
    expect(payload.sub).toBe(user_id);
    await expect(
      jwtVerify(session_jwt, jwks, { audience: 'app_other', issuer: 'latchkey' }),
    ).rejects.toMatchObject({ code: 'ERR_JWT_CLAIM_VALIDATION_FAILED', claim: 'aud' });

    const live = await authenticate({ session_token });
    expect(live.status).toBe(200);
    expect(live.body).toMatchObject({ user_id, session: { id: payload.sid, user_id } });

    const user = await call(server.url, 'GET', `/v1/auth/users/${user_id}`, { key: server.keys.secret_key });
    expect(user.body).toMatchObject({ emails: [{ email, verified: true }] });

    const revoked = await call(server.url, 'POST', '/v1/auth/sessions/revoke', {
      key: server.keys.public_token,
      body: { session_token },
    });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ session_id: payload.sid, user_id });
    expectError(await authenticate({ session_token }), 401, 'session_not_found');
    expectError(await authenticate({ session_jwt }), 401, 'session_not_found');
  });

  it('logs in by SMS into a live session', async () => {
    const { user_id, session_token } = await logIn('sms', phone);
    const live = await authenticate({ session_token });
    expect(live.status).toBe(200);
    expect(live.body).toMatchObject({ user_id });
    const user = await call(server.url, 'GET', `/v1/auth/users/${user_id}`, { key: server.keys.secret_key });
    expect(user.body).toMatchObject({ phone_numbers: [{ phone_number: phone, verified: true }] });
  });

  it('handles TOTP, magic-link and wallet secrets (for the dump below)', async () => {
    const key = server.keys.secret_key;
    const user = await call(server.url, 'POST', '/v1/auth/users', {
      key,
      body: { email: uniqueEmail('secrets') },
    });
    const user_id = user.body.user_id as string;
    const totp = await call(server.url, 'POST', '/v1/auth/totps/create', { key, body: { user_id } });
    expect(totp.status).toBe(200);
    seen.other.totp_secret = totp.body.secret as string;
    (totp.body.recovery_codes as string[]).forEach((code, i) => {
      seen.other[`recovery_code_${i}`] = code;
    });
    const linkEmail = uniqueEmail('link');
    const link = await call(server.url, 'POST', '/v1/auth/magic_links/email/login_or_create', {
      key: server.keys.public_token,
      body: { email: linkEmail },
    });
    expect(link.status).toBe(200);
    const sent = (await readOutbox(path.join(server.dataDir, 'outbox.jsonl')))
      .filter((e) => e.to === linkEmail)
      .at(-1)!;
    seen.other.magic_link_token = new URL(sent.url!).searchParams.get('token')!;
    const wallet = await call(server.url, 'POST', '/v1/wallets/create', {
      key,
      body: { user_id, wallet_type: 'ethereum' },
    });
    expect(wallet.status).toBe(200);
    const privateKey = `0x${'3c'.repeat(32)}`;
    const imported = await call(server.url, 'POST', '/v1/wallets/import', {
      key,
      body: { user_id, wallet_type: 'bitcoin', private_key: privateKey },
    });
    expect(imported.status).toBe(200);
    seen.other.imported_key = privateKey.slice(2);
  });

  it('keeps no code, token, key or vault key in plain text at rest', async () => {
    // What the two logins above handled: both must have run.
    expect(seen.codes).toHaveLength(2);
    expect(await server.stop()).toEqual({ code: 0, signal: null });
    const { tables, text } = await dumpDatabase(server.dataDir, target);

    // The dump is real: it covers the tables involved and holds what is not secret.
    expect(tables).toEqual(expect.arrayContaining(['apps', 'users', 'emails', 'otps', 'sessions']));
    expect(text).toContain(email);
    expect(text).toContain(phone);
    expect(text).toContain(server.keys.app_id);

    const stored = JSON.parse(await readFile(path.join(server.dataDir, 'secrets.json'), 'utf8'));
    const vaultKey: string = stored.vault_key;
    const secrets = {
      secret_key: server.keys.secret_key,
      public_token: server.keys.public_token,
      vault_key: vaultKey,
      vault_key_hex: Buffer.from(vaultKey, 'base64url').toString('hex'),
      vault_key_base64: Buffer.from(vaultKey, 'base64url').toString('base64'),
      hashing_secret: stored.secret,
      ...Object.fromEntries(seen.sessionTokens.map((t, i) => [`session_token_${i}`, t])),
      ...Object.fromEntries(seen.sessionJwts.map((t, i) => [`session_jwt_${i}`, t])),
      ...seen.other,
    };
    expect(Object.keys(seen.other)).toHaveLength(13);
    expect(tables).toEqual(
      expect.arrayContaining(['totps', 'recovery_codes', 'magic_links', 'wallets', 'seeds']),
    );
    for (const [name, value] of Object.entries(secrets)) {
      expect(text.includes(value), `${name} appears in the database`).toBe(false);
    }
    // A 6-digit code may occur by chance inside a hash or a timestamp; stored as a value it stands alone.
    for (const code of seen.codes) {
      expect(new RegExp(`(?<![0-9A-Za-z_-])${code}(?![0-9A-Za-z_-])`).test(text), `code ${code}`).toBe(false);
    }
  });
});
