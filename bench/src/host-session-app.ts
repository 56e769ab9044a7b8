import { randomBytes } from 'node:crypto';
import { createLatchkey, type Factor, type Latchkey } from '@latchkey/core';
import { configFromEnv } from '@latchkey/example-express-server/config';
import { openStorage } from '@latchkey/example-express-server/storage';

/** The proof the bench's sessions are issued with: an email passcode, long ago. */
export const benchFactor: Factor = {
  type: 'otp',
  delivery_channel: 'email',
  method: {
    method_id: 'email_bench',
    method_type: 'email',
    email_id: 'email_bench',
    email: 'bench@example.com',
    last_verified_at: 0,
  },
};

export interface HostSessionApp {
  latchkey: Latchkey;
  appId: string;
  userId: string;
  session_jwt: string;
  session_token: string;
  session_id: string;
  /** A JWT of a session scoped to an organization where the user holds `billing` (`invoices:read`). */
  organization_session_jwt: string;
  storage: string;
  close(): Promise<void>;
}

/**
 * A latchkey embedded in a host process, on the storage the example server uses (Postgres when
 * DATABASE_URL is set, PGlite under `dataDir` otherwise), with one App and one signed-in session
 * whose JWT outlives a bench run (an hour).
 */
export async function hostSessionApp(dataDir: string): Promise<HostSessionApp> {
  const { storage, description } = await openStorage({ ...configFromEnv(), dataDir });
  const latchkey = createLatchkey({ storage, secret: randomBytes(32).toString('base64url') });
  const { app_id } = await latchkey.apps.create({
    name: 'bench host',
    settings: {
      sessions: { jwt_lifetime_seconds: 3600 },
      organizations: { roles: { billing: ['invoices:read'] } },
    },
  });
  const { user_id } = await latchkey.users.create(app_id, {
    email: `bench.host.${randomBytes(4).toString('hex')}@example.com`,
  });
  const issued = await latchkey.sessions.issue(app_id, user_id, benchFactor, { session_expires_in: 120 });
  // Another session, exchanged into an organization (the exchange revokes the one it is given).
  const { organization_id } = await latchkey.organizations.create(app_id, {
    name: 'Bench',
    slug: `bench-${randomBytes(4).toString('hex')}`,
  });
  await latchkey.organizations.addMember(app_id, organization_id, { user_id, roles: ['billing'] });
  const unscoped = await latchkey.sessions.issue(app_id, user_id, benchFactor, { session_expires_in: 120 });
  const scoped = await latchkey.organizations.sessions.exchange(app_id, organization_id, {
    session_token: unscoped.session_token as string,
  });
  // jwt mode with its set of revoked sessions live, as a serving host has it (issue 34).
  const revocations = await latchkey.sessions.watchRevocations();
  return {
    latchkey,
    appId: app_id,
    userId: user_id,
    session_jwt: issued.session_jwt as string,
    session_token: issued.session_token as string,
    session_id: issued.session!.id,
    organization_session_jwt: scoped.session_jwt,
    storage: `${description}, revocations ${revocations}`,
    close: () => latchkey.close(),
  };
}
