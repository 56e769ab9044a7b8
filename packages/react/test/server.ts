import { randomBytes } from 'node:crypto';
import {
  bearerCredential,
  createLatchkey,
  errorBody,
  LatchkeyError,
  newRequestId,
  type Storage,
  systemRandom,
} from '@latchkey/core';
import { kyselyStorage, pgliteStorage } from '@latchkey/kysely-postgres';
import pg from 'pg';

/**
 * A real Latchkey for the hooks to talk to, in process: PGlite, or Postgres in a schema of its own
 * when DATABASE_URL is set. Its sender keeps each message so a test reads the code or link. Beside
 * the `/v1` API it serves the host's TOTP routes under `/account/totp`, as a host would (the
 * session as the bearer, Latchkey's TOTP calls for that user only).
 */
export async function startLatchkey() {
  const url = process.env.DATABASE_URL;
  let storage: Storage;
  let dispose: () => Promise<void>;
  if (url) {
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    const schema = `latchkey_react_${randomBytes(6).toString('hex')}`;
    storage = await kyselyStorage({ pool, schema, migrate: true });
    dispose = async () => {
      await pool.query(`drop schema if exists "${schema}" cascade`);
      await pool.end();
    };
  } else {
    storage = await pgliteStorage(undefined, { migrate: true });
    dispose = async () => {};
  }
  const sent: Array<{ to: string; kind: string; code?: string; url?: string }> = [];
  const latchkey = createLatchkey({
    storage,
    secret: randomBytes(32).toString('hex'),
    sender: { send: async (m) => void sent.push(m as (typeof sent)[number]) },
  });
  const keys = await latchkey.apps.create({ name: 'React hooks' });
  const appId = keys.app.id;
  // Magic links lead to the test's landing page (happy-dom's default origin).
  const landing = 'http://localhost:3000/landing';
  await latchkey.apps.updateSettings(appId, {
    ...keys.app.settings,
    redirect_urls: { login: [landing], signup: [landing], default_login: landing, default_signup: landing },
  });

  const totpRoute = async (request: Request, path: string): Promise<Response> => {
    try {
      const credential = bearerCredential(request.headers.get('authorization'));
      if (!credential) throw new LatchkeyError('session_required');
      const { user_id } = await latchkey.sessions.authenticate(appId, credential);
      const body = (await request.json()) as Record<string, string>;
      const answer =
        path === ''
          ? await latchkey.totps.create(appId, { user_id })
          : path === '/verify'
            ? await latchkey.totps.verify(appId, { user_id, totp_code: body.totp_code! })
            : await latchkey.totps.authenticate(appId, {
                user_id,
                totp_code: body.totp_code!,
                ...credential,
              });
      return Response.json(answer);
    } catch (e) {
      const error = e instanceof LatchkeyError ? e : new LatchkeyError('internal_error');
      return Response.json(errorBody(error, newRequestId(systemRandom)), { status: error.status });
    }
  };

  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input as string, init);
    const path = new URL(request.url).pathname;
    if (path.startsWith('/account/totp')) return totpRoute(request, path.slice('/account/totp'.length));
    return latchkey.fetch(request);
  };

  return {
    latchkey,
    keys,
    appId,
    sent,
    fetch,
    /** The last code or link sent to `to`. */
    last: (to: string) => sent.filter((m) => m.to === to).at(-1)!,
    close: async () => {
      await latchkey.close();
      await dispose();
    },
  };
}
