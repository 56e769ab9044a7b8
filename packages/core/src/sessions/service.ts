import type { AppRecord } from '../apps/repo.js';
import { newSecret } from '../crypto/ids.js';
import { LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { DeviceFingerprint } from '../otps/repo.js';
import { signSessionJwt, verifySessionJwt } from './jwt.js';
import type { Factor, SessionRecord } from './repo.js';
import type { Session } from './schema.js';
import type { SigningKeys } from './signing-keys.js';

/** The session fields of every proof-of-identity request. */
export interface SessionFields {
  session_expires_in?: number | undefined;
  session_token?: string | undefined;
  session_jwt?: string | undefined;
}

export interface IssuedSession {
  session_token?: string;
  session_jwt?: string;
  session?: Session;
}

export type SessionService = ReturnType<typeof sessionService>;

export function sessionService(k: Kernel, keys: SigningKeys, options: { issuer: string }) {
  const hashToken = (token: string) => k.hasher.hash('session_token', token);

  async function jwtFor(app: AppRecord, session: SessionRecord): Promise<string> {
    const key = await keys.active(app.id, app.settings.sessions.jwt_alg);
    const now = k.now();
    return signSessionJwt(key, {
      appId: app.id,
      issuer: options.issuer,
      userId: session.user_id,
      sessionId: session.id,
      factors: session.factors,
      iat: now,
      exp: Math.min(session.expires_at, now + app.settings.sessions.jwt_lifetime_seconds),
    });
  }

  const view = (s: SessionRecord, token?: string): Session => ({
    id: s.id,
    user_id: s.user_id,
    ...(token === undefined ? {} : { session_token: token }),
    started_at: s.started_at,
    expires_at: s.expires_at,
    last_active_at: s.last_active_at,
    factors: s.factors,
    device_fingerprint: {
      user_agent: s.device_fingerprint?.user_agent ?? '',
      ip: s.device_fingerprint?.ip ?? '',
    },
    updated_at: s.updated_at,
    created_at: s.created_at,
  });

  /** The live session a token or JWT names; null when unknown, revoked, expired or not this App's. */
  async function findLive(appId: string, fields: SessionFields): Promise<SessionRecord | null> {
    let session: SessionRecord | null = null;
    if (fields.session_token !== undefined) {
      session = await k.storage.sessions.findByTokenHash(appId, hashToken(fields.session_token));
    } else if (fields.session_jwt !== undefined) {
      const claims = await verifyJwt(appId, fields.session_jwt);
      session = await k.storage.sessions.get(appId, claims.sid);
    }
    if (!session || session.revoked_at !== null || session.expires_at <= k.now()) return null;
    return session;
  }

  async function verifyJwt(appId: string, jwt: string) {
    const verify = async (fresh: boolean) =>
      verifySessionJwt(jwt, {
        jwks: await keys.jwks(appId, { fresh }),
        appId,
        issuer: options.issuer,
        now: k.now(),
      });
    // A key made by another process in the last minute is not in the cached JWKS yet.
    return verify(false).catch(() => verify(true));
  }

  const oneOf = (fields: SessionFields) => {
    const given = [fields.session_token, fields.session_jwt].filter((v) => v !== undefined).length;
    if (given !== 1) {
      throw new LatchkeyError(
        given === 0 ? 'missing_field' : 'invalid_field',
        'Send exactly one of session_token and session_jwt.',
        {
          field: 'session_token',
        },
      );
    }
  };

  return {
    /**
     * Applies the spec's session rules after a successful proof: extends the live session sent
     * (when it is the same user's) and appends the factor; otherwise creates one when
     * `session_expires_in` is set; otherwise issues nothing.
     */
    async issue(
      appId: string,
      userId: string,
      factor: Factor,
      fields: SessionFields,
      fingerprint?: DeviceFingerprint,
    ): Promise<IssuedSession> {
      const app = await k.app(appId);
      const now = k.now();
      const expiresAt =
        fields.session_expires_in === undefined ? undefined : now + fields.session_expires_in * 60;
      const sent =
        fields.session_token !== undefined || fields.session_jwt !== undefined
          ? await findLive(appId, fields).catch(() => null)
          : null;
      if (sent && sent.user_id === userId) {
        const touched = await k.storage.sessions.touch(appId, sent.id, now, {
          factor,
          ...(expiresAt === undefined ? {} : { expiresAt }),
        });
        if (touched) {
          return {
            ...(fields.session_token ? { session_token: fields.session_token } : {}),
            session_jwt: await jwtFor(app, touched),
            session: view(touched, fields.session_token),
          };
        }
      }
      if (expiresAt === undefined) return {};
      const token = newSecret('lks_', k.random, 32);
      const session: SessionRecord = {
        id: k.id('session'),
        app_id: appId,
        user_id: userId,
        token_hash: hashToken(token),
        started_at: now,
        expires_at: expiresAt,
        last_active_at: now,
        factors: [factor],
        device_fingerprint: fingerprint ?? null,
        revoked_at: null,
        created_at: now,
        updated_at: now,
      };
      await k.storage.sessions.insert(session);
      return { session_token: token, session_jwt: await jwtFor(app, session), session: view(session, token) };
    },

    /** Checks a session token or JWT against storage (so revocation is immediate) and refreshes its JWT. */
    async authenticate(appId: string, fields: SessionFields) {
      oneOf(fields);
      const app = await k.app(appId);
      const session = await findLive(appId, fields);
      if (!session) throw new LatchkeyError('session_not_found');
      const now = k.now();
      const touched = await k.storage.sessions.touch(appId, session.id, now, {
        ...(fields.session_expires_in === undefined
          ? {}
          : { expiresAt: now + fields.session_expires_in * 60 }),
      });
      if (!touched) throw new LatchkeyError('session_not_found');
      return {
        user_id: touched.user_id,
        ...(fields.session_token ? { session_token: fields.session_token } : {}),
        session_jwt: await jwtFor(app, touched),
        session: view(touched, fields.session_token),
      };
    },

    async revoke(appId: string, fields: SessionFields & { session_id?: string | undefined }) {
      const given = [fields.session_id, fields.session_token, fields.session_jwt].filter(
        (v) => v !== undefined,
      );
      if (given.length !== 1) {
        throw new LatchkeyError(
          'missing_field',
          'Send exactly one of session_id, session_token and session_jwt.',
          {
            field: 'session_id',
          },
        );
      }
      const session =
        fields.session_id !== undefined
          ? await k.storage.sessions.get(appId, fields.session_id)
          : await findLive(appId, fields);
      const revoked = session ? await k.storage.sessions.revoke(appId, session.id, k.now()) : null;
      if (!revoked) throw new LatchkeyError('session_not_found');
      return { message: 'Session revoked.', session_id: revoked.id, user_id: revoked.user_id };
    },

    jwks: (appId: string) => keys.jwks(appId),
    /** The JWKS of any App by id, for the open JWKS route: 404 for an unknown App. */
    async publicJwks(appId: string) {
      await k.app(appId);
      return keys.jwks(appId);
    },
    rotateSigningKey: (appId: string) => keys.rotate(appId),
  };
}
