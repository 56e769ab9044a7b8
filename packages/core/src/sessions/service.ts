import type { AppRecord } from '../apps/repo.js';
import { newSecret } from '../crypto/ids.js';
import { LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { DeviceFingerprint } from '../shared/device-fingerprint.js';
import type { Factor } from '../shared/factor.js';
import { appVerificationKeys } from './app-keys.js';
import { protectedHeaderKid } from './jose.js';
import { type SessionClaims, signSessionJwt, verifySessionClaims } from './jwt.js';
import { jwtReuse } from './jwt-reuse.js';
import type { SessionRecord } from './repo.js';
import {
  type Session,
  type SessionCheck,
  type SessionCheckInput,
  sessionCheckInputSchema,
} from './schema.js';
import type { SigningKeys } from './signing-keys.js';
import { verifiedJwts } from './verified-jwts.js';

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

  // A session token is hashed on every check and authenticate; a host that sees the same token
  // on each request remembers its hash (a pure function of the token) instead of re-running the
  // HMAC. Bounded: the oldest entry leaves first.
  const tokenHashes = new Map<string, string>();
  const lookupHash = (token: string) => {
    if (token.length > 200) return hashToken(token); // no real token is this long: not worth keeping
    let hash = tokenHashes.get(token);
    if (hash === undefined) {
      hash = hashToken(token);
      if (tokenHashes.size >= 10_000) tokenHashes.delete(tokenHashes.keys().next().value as string);
      tokenHashes.set(token, hash);
    }
    return hash;
  };

  // The App of each session token seen without one (`appIdOfToken`); bounded as tokenHashes.
  const tokenApps = new Map<string, string>();

  const verificationKeys = appVerificationKeys(
    async (appId) => (await keys.jwks(appId, { fresh: true })).keys,
    k.now,
  );
  const issuedJwts = jwtReuse();
  const verified = verifiedJwts();

  async function jwtFor(app: AppRecord, session: SessionRecord): Promise<string> {
    const key = await keys.active(app.id, app.settings.sessions.jwt_alg);
    const now = k.now();
    const reusable = issuedJwts.reusable(session.id, key.kid, session.factors, now);
    if (reusable !== undefined) return reusable;
    verificationKeys.remember(app.id, key.publicJwk);
    const exp = Math.min(session.expires_at, now + app.settings.sessions.jwt_lifetime_seconds);
    const jwt = await signSessionJwt(key, {
      appId: app.id,
      issuer: options.issuer,
      userId: session.user_id,
      sessionId: session.id,
      factors: session.factors,
      iat: now,
      exp,
    });
    issuedJwts.remember(session.id, { jwt, kid: key.kid, iat: now, exp, factors: session.factors });
    return jwt;
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

  const isLive = (session: SessionRecord | null): session is SessionRecord =>
    session !== null && session.revoked_at === null && session.expires_at > k.now();

  /** The live session a token or JWT names; null when unknown, revoked, expired or not this App's. */
  async function findLive(appId: string, fields: SessionFields): Promise<SessionRecord | null> {
    let session: SessionRecord | null = null;
    if (fields.session_token !== undefined) {
      session = await k.storage.sessions.findByTokenHash(appId, lookupHash(fields.session_token));
    } else if (fields.session_jwt !== undefined) {
      const claims = await verifyJwt(appId, fields.session_jwt);
      session = await k.storage.sessions.get(appId, claims.sid);
    }
    return isLive(session) ? session : null;
  }

  /** With the App's keys held in memory: no storage access once they are loaded. */
  async function verifyJwt(appId: string, jwt: string, ignoreExpiry = false): Promise<SessionClaims> {
    const known = ignoreExpiry ? undefined : verified.get(appId, jwt, k.now())?.claims;
    if (known !== undefined) return known;
    const claims = await verifySessionClaims(jwt, verificationKeys.getter(appId), {
      appId,
      issuer: options.issuer,
      now: k.now(),
      ignoreExpiry,
    });
    if (!ignoreExpiry && typeof claims.iat === 'number') {
      issuedJwts.remember(claims.sid, {
        jwt,
        kid: protectedHeaderKid(jwt),
        iat: claims.iat,
        exp: claims.exp,
        factors: claims.factors,
      });
      verified.remember(appId, jwt, claims);
    }
    return claims;
  }

  /**
   * Records activity at most once per the App's `activity_update_seconds`; returns the session
   * as it now stands, or null when it ended meanwhile.
   */
  async function noteActivity(app: AppRecord, session: SessionRecord): Promise<SessionRecord | null> {
    const now = k.now();
    if (now - session.last_active_at < app.settings.sessions.activity_update_seconds) return session;
    return k.storage.sessions.touch(app.id, session.id, now, {});
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

    /**
     * Checks a session token or JWT against storage (so revocation is immediate) and hands back
     * its JWT. The common case is one storage read: activity is written at most once per the
     * App's `activity_update_seconds`, the expiry only when it moves, and the JWT is the current
     * one while it has more than half its lifetime left.
     */
    async authenticate(appId: string, fields: SessionFields) {
      oneOf(fields);
      const app = await k.app(appId);
      let session = await findLive(appId, fields);
      if (!session) throw new LatchkeyError('session_not_found');
      const now = k.now();
      const expiresAt =
        fields.session_expires_in === undefined ? undefined : now + fields.session_expires_in * 60;
      session =
        expiresAt !== undefined && expiresAt > session.expires_at
          ? await k.storage.sessions.touch(appId, session.id, now, { expiresAt })
          : await noteActivity(app, session);
      if (!session) throw new LatchkeyError('session_not_found');
      return {
        user_id: session.user_id,
        ...(fields.session_token ? { session_token: fields.session_token } : {}),
        session_jwt: await jwtFor(app, session),
        session: view(session, fields.session_token),
      };
    },

    /**
     * The user of a live session named by exactly one of its token or JWT, as `authenticate`
     * judges it (revoked, expired or unknown: `session_not_found`; a bad JWT:
     * `invalid_session_jwt`), for routes that act on the caller's own account.
     */
    async liveUserId(appId: string, fields: SessionFields): Promise<string> {
      oneOf(fields);
      const session = await findLive(appId, fields);
      if (!session) throw new LatchkeyError('session_not_found');
      return session.user_id;
    },

    /**
     * Who a host request comes from, in process. `mode: 'jwt'` checks the JWT's signature with
     * the App's keys held in memory and reads no storage; `mode: 'token'` (and any session token)
     * reads storage, so a revoked session is refused at once. Throws the documented 401s
     * (`session_not_found`, `invalid_session_jwt`).
     */
    async check(input: SessionCheckInput): Promise<SessionCheck> {
      const parsed = sessionCheckInputSchema.safeParse(input);
      if (!parsed.success) {
        throw new LatchkeyError('invalid_field', parsed.error.issues[0]?.message, {
          field: String(parsed.error.issues[0]?.path.join('.') ?? ''),
        });
      }
      const { app_id: appId, session_jwt: jwt, session_token: token } = parsed.data;
      oneOf({ session_jwt: jwt, session_token: token });
      let session: SessionRecord | null;
      if (jwt !== undefined) {
        const claims = await verifyJwt(appId, jwt);
        if ((parsed.data.mode ?? 'jwt') === 'jwt') return checkFromClaims(appId, claims);
        session = await k.storage.sessions.get(appId, claims.sid);
      } else {
        session = await k.storage.sessions.findByTokenHash(appId, lookupHash(token as string));
      }
      if (!isLive(session)) throw new LatchkeyError('session_not_found');
      const live = await noteActivity(await k.app(appId), session);
      if (!live) throw new LatchkeyError('session_not_found');
      return {
        app_id: appId,
        user_id: live.user_id,
        session_id: live.id,
        factors: live.factors,
        expires_at: live.expires_at,
      };
    },

    /**
     * `check` in jwt mode for a JWT this process has verified before, answered without a promise
     * (the claims are held until `exp`), or undefined when it must go through `check`: lets an
     * adapter's middleware call the host's next handler in the same tick. `appId` undefined: a
     * JWT verified for any App (the one its `aud` names).
     */
    checkKnownJwt(appId: string | undefined, jwt: string): SessionCheck | undefined {
      const known = verified.get(appId, jwt, k.now());
      return known === undefined ? undefined : checkFromClaims(known.appId, known.claims);
    },

    /**
     * The App of a session token, in any App, for a host that serves several without naming
     * one: one storage read the first time a token is seen, none after (a token's App never
     * changes). Null for a token no App holds.
     */
    async appIdOfToken(token: string): Promise<string | null> {
      const known = tokenApps.get(token);
      if (known !== undefined) return known;
      const appId = await k.storage.sessions.appIdByTokenHash(lookupHash(token));
      if (appId !== null && token.length <= 200) {
        if (tokenApps.size >= 10_000) tokenApps.delete(tokenApps.keys().next().value as string);
        tokenApps.set(token, appId);
      }
      return appId;
    },

    /**
     * Revokes by id, token or JWT. A JWT whose `exp` has passed still revokes its own session
     * (its signature and App are checked as ever): a client holding only that JWT can log out.
     */
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
      let sessionId: string | undefined;
      if (fields.session_id !== undefined) sessionId = fields.session_id;
      else if (fields.session_jwt !== undefined)
        sessionId = (await verifyJwt(appId, fields.session_jwt, true)).sid;
      else sessionId = (await findLive(appId, fields))?.id;
      const revoked = sessionId ? await k.storage.sessions.revoke(appId, sessionId, k.now()) : null;
      if (!revoked) throw new LatchkeyError('session_not_found');
      issuedJwts.forget(revoked.id);
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

/** The jwt-mode answer of `check`: what the verified claims say, no storage read. */
function checkFromClaims(appId: string, claims: SessionClaims): SessionCheck {
  return {
    app_id: appId,
    user_id: claims.sub,
    session_id: claims.sid,
    factors: claims.factors,
    expires_at: claims.exp,
  };
}
