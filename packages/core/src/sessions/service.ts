import type { ApiKeyKind, AppRecord } from '../apps/repo.js';
import { newSecret } from '../crypto/ids.js';
import { LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { DeviceFingerprint } from '../shared/device-fingerprint.js';
import type { Factor } from '../shared/factor.js';
import { requireUser } from '../shared/require-user.js';
import { appVerificationKeys } from './app-keys.js';
import { authTime } from './auth-time.js';
import { deviceLabel } from './device-label.js';
import { protectedHeaderKid } from './jose.js';
import { type OrganizationScope, type SessionClaims, signSessionJwt, verifySessionClaims } from './jwt.js';
import { jwtReuse } from './jwt-reuse.js';
import type { SessionRecord } from './repo.js';
import { type RevokedSessions, SKEW_SECONDS } from './revoked-sessions.js';
import {
  type ListedSession,
  type ListSessionsInput,
  type Session,
  type SessionCheck,
  type SessionCheckInput,
  sessionCheckInputSchema,
} from './schema.js';
import type { SigningKeys } from './signing-keys.js';
import { asksStepUp, requireStepUp, type StepUpRequirement } from './step-up.js';
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

/**
 * What the user holds in the organization now (roles and the permissions they grant), or null
 * when they are no member: the organizations capability supplies it (`scopeOrganizations`), so
 * this folder reads no organization storage of its own.
 */
export type OrganizationScopeReader = (
  appId: string,
  organizationId: string,
  userId: string,
) => Promise<OrganizationScope | null>;

export function sessionService(
  k: Kernel,
  keys: SigningKeys,
  options: { issuer: string; revoked: RevokedSessions },
) {
  const { revoked } = options;
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
  let readScope: OrganizationScopeReader | undefined;

  /**
   * The organization scope of a session as storage holds it now; undefined for an unscoped one.
   * A scoped session whose user is no member (or whose organizations capability is gone) is
   * refused: removal revokes it, so this only closes the window of a revocation in flight.
   */
  async function scopeOf(session: SessionRecord): Promise<OrganizationScope | undefined> {
    const organizationId = session.organization_id ?? null;
    if (organizationId === null) return undefined;
    const scope = readScope ? await readScope(session.app_id, organizationId, session.user_id) : null;
    if (!scope) throw new LatchkeyError('session_not_found');
    return scope;
  }

  async function jwtFor(app: AppRecord, session: SessionRecord, known?: OrganizationScope): Promise<string> {
    const key = await keys.active(app.id, app.settings.sessions.jwt_alg);
    const now = k.now();
    const reusable = issuedJwts.reusable(session.id, key.kid, session.factors, now);
    if (reusable !== undefined) return reusable;
    const scope = known ?? (await scopeOf(session));
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
      scope,
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
    ...(s.organization_id ? { organization_id: s.organization_id } : {}),
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

  /**
   * Whose sessions a list or revoke-all call is about: the user the secret key names, or the user
   * of the live session the caller sends (which is then the "current" one). A public token never
   * names a user: it proves one with a session.
   */
  async function subject(
    appId: string,
    input: SessionFields & { user_id?: string | undefined },
    keyKind: ApiKeyKind,
  ): Promise<{ userId: string; current: SessionRecord | null }> {
    const given = [input.user_id, input.session_token, input.session_jwt].filter((v) => v !== undefined);
    if (given.length !== 1) {
      throw new LatchkeyError(
        given.length === 0 ? 'missing_field' : 'invalid_field',
        'Send exactly one of user_id (secret key), session_token and session_jwt.',
        { field: 'user_id' },
      );
    }
    if (input.user_id !== undefined) {
      if (keyKind !== 'secret') {
        throw new LatchkeyError(
          'secret_key_required',
          "Naming a user needs the secret key; with the public token, send the user's session_token or session_jwt.",
          { field: 'user_id' },
        );
      }
      await requireUser(k.storage.users, appId, input.user_id);
      return { userId: input.user_id, current: null };
    }
    const current = await findLive(appId, input);
    if (!current) throw new LatchkeyError('session_not_found');
    return { userId: current.user_id, current };
  }

  const listed = (s: SessionRecord, currentId: string | undefined): ListedSession => {
    const { session_token: _none, ...session } = view(s);
    return {
      ...session,
      device_label: deviceLabel(s.device_fingerprint?.user_agent),
      current: s.id === currentId,
    };
  };

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

  /** A session token or JWT's session as `check` sees it, in the given mode (no step-up here). */
  async function checkSession(
    appId: string,
    jwt: string | undefined,
    token: string | undefined,
    mode: 'jwt' | 'token',
  ): Promise<SessionCheck> {
    let session: SessionRecord | null;
    if (jwt !== undefined) {
      const claims = await verifyJwt(appId, jwt);
      if (mode === 'jwt') {
        revoked.start();
        if (revoked.trusted()) {
          if (revoked.has(claims.sid)) throw new LatchkeyError('session_not_found');
          return checkFromClaims(appId, claims);
        }
        // The set may be missing a revocation (starting, or its channel is down): storage decides.
        if (!isLive(await k.storage.sessions.get(appId, claims.sid)))
          throw new LatchkeyError('session_not_found');
        return checkFromClaims(appId, claims);
      }
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
      auth_time: authTime(live.factors),
      expires_at: live.expires_at,
      // Token mode: the member's roles as they are now, and what the App's settings grant.
      ...(await scopeOf(live)),
    };
  }

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
     * A new session scoped to an organization in place of the live one sent, which it revokes:
     * the same user, factors, start and device; the expiry of the one sent, or
     * `session_expires_in` from now. `admit` decides whether the user may have it (throws
     * otherwise) and says what they hold there. Answers as `authenticate` does.
     */
    async exchange(
      appId: string,
      fields: SessionFields,
      organizationId: string,
      admit: (userId: string, factors: readonly Factor[]) => Promise<OrganizationScope>,
    ) {
      oneOf(fields);
      const app = await k.app(appId);
      const sent = await findLive(appId, fields);
      if (!sent) throw new LatchkeyError('session_not_found');
      const scope = await admit(sent.user_id, sent.factors);
      const now = k.now();
      const token = newSecret('lks_', k.random, 32);
      const session: SessionRecord = {
        ...sent,
        id: k.id('session'),
        token_hash: hashToken(token),
        expires_at:
          fields.session_expires_in === undefined ? sent.expires_at : now + fields.session_expires_in * 60,
        last_active_at: now,
        created_at: now,
        updated_at: now,
        organization_id: organizationId,
      };
      // One session per sign-in: the one sent ends as its successor starts (docs/decisions.md).
      await k.storage.transaction(async (tx) => {
        if (!(await tx.sessions.revoke(appId, sent.id, now, 'user')))
          throw new LatchkeyError('session_not_found');
        await tx.sessions.insert(session);
      });
      issuedJwts.forget(sent.id);
      return {
        user_id: session.user_id,
        session_token: token,
        session_jwt: await jwtFor(app, session, scope),
        session: view(session, token),
      };
    },

    /**
     * Supplies what a session scoped to an organization holds there (the organizations
     * capability calls it once, as it starts).
     */
    scopeOrganizations(reader: OrganizationScopeReader): void {
      readScope = reader;
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
     * `invalid_session_jwt`), for routes that act on the caller's own account; with `stepUp`, also
     * `step_up_required` unless the session meets it.
     */
    async liveUserId(appId: string, fields: SessionFields, stepUp?: StepUpRequirement): Promise<string> {
      oneOf(fields);
      const session = await findLive(appId, fields);
      if (!session) throw new LatchkeyError('session_not_found');
      if (stepUp && asksStepUp(stepUp)) requireStepUp(session.factors, k.now(), stepUp);
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
      const stepUp = { freshWithin: parsed.data.fresh_within, factors: parsed.data.factors };
      const checked = await checkSession(appId, jwt, token, parsed.data.mode ?? 'jwt');
      if (asksStepUp(stepUp)) requireStepUp(checked.factors, k.now(), stepUp);
      return checked;
    },

    /**
     * Throws `step_up_required` (401) unless the checked session meets the requirement now: for
     * sensitive actions ("sudo mode"). The host adapters' `freshWithin` / `factors` options.
     */
    requireStepUp(auth: Pick<SessionCheck, 'factors'>, requirement: StepUpRequirement): void {
      if (asksStepUp(requirement)) requireStepUp(auth.factors, k.now(), requirement);
    },

    /**
     * `check` in jwt mode for a JWT this process has verified before, answered without a promise
     * (the claims are held until `exp`), or undefined when it must go through `check`: lets an
     * adapter's middleware call the host's next handler in the same tick. `appId` undefined: a
     * JWT verified for any App (the one its `aud` names).
     */
    checkKnownJwt(appId: string | undefined, jwt: string): SessionCheck | undefined {
      const known = verified.get(appId, jwt, k.now());
      if (known === undefined) return undefined;
      revoked.start();
      // A revoked session, or a set that may be missing one, goes the long way.
      if (!revoked.trusted() || revoked.has(known.claims.sid)) return undefined;
      return checkFromClaims(known.appId, known.claims);
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
     * Revokes by token or JWT (the session they name: a logout), by `session_id` alone (any
     * session of the App: the secret key only), or by `session_id` beside the caller's token or
     * JWT (a session of the caller's own user: "sign out that device"). A session of another App
     * or, for a caller's session, of another user is `session_not_found`, as a missing one is.
     * A JWT whose `exp` has passed still revokes its own session (its signature and App are
     * checked as ever): a client holding only that JWT can log out. `keyKind`: the API key of
     * the request; in process, the host's own code, which counts as the secret key.
     */
    async revoke(
      appId: string,
      fields: SessionFields & {
        session_id?: string | undefined;
        /** In process: with `session_id` alone, the session must be this user's (a host's own check). */
        user_id?: string | undefined;
      },
      keyKind: ApiKeyKind = 'secret',
    ) {
      const credentials = [fields.session_token, fields.session_jwt].filter((v) => v !== undefined);
      if (credentials.length > 1 || (credentials.length === 0 && fields.session_id === undefined)) {
        throw new LatchkeyError(
          credentials.length > 1 ? 'invalid_field' : 'missing_field',
          'Send session_id, session_token or session_jwt, or session_id beside one of the other two.',
          { field: 'session_id' },
        );
      }
      let sessionId: string | undefined;
      let current = false;
      let reason: 'user' | 'admin' = 'user';
      if (fields.session_id !== undefined && credentials.length === 0) {
        // A session id is in every JWT: with the public token alone, anyone could log anyone out.
        if (keyKind !== 'secret') {
          throw new LatchkeyError(
            'secret_key_required',
            "Revoking by session_id alone needs the secret key; send the caller's session_token or session_jwt beside it.",
            { field: 'session_id' },
          );
        }
        sessionId = fields.session_id;
        reason = 'admin';
        if (fields.user_id !== undefined) {
          const target = await k.storage.sessions.get(appId, sessionId);
          if (target?.user_id !== fields.user_id) sessionId = undefined;
          reason = 'user';
        }
      } else if (fields.session_id !== undefined) {
        const caller = await findLive(appId, fields);
        if (!caller) throw new LatchkeyError('session_not_found');
        const target =
          fields.session_id === caller.id ? caller : await k.storage.sessions.get(appId, fields.session_id);
        // Another user's session answers as a missing one: its existence is not the caller's to learn.
        if (target?.user_id === caller.user_id) sessionId = target.id;
        current = sessionId === caller.id;
      } else if (fields.session_jwt !== undefined) {
        sessionId = (await verifyJwt(appId, fields.session_jwt, true)).sid;
        current = true;
      } else {
        sessionId = (await findLive(appId, fields))?.id;
        current = true;
      }
      const revoked = sessionId ? await k.storage.sessions.revoke(appId, sessionId, k.now(), reason) : null;
      if (!revoked) throw new LatchkeyError('session_not_found');
      issuedJwts.forget(revoked.id);
      return { message: 'Session revoked.', session_id: revoked.id, user_id: revoked.user_id, current };
    },

    /**
     * Ends every live session of a user: the one the secret key names (`user_id`, keeping
     * `except_session_id`), or the caller's own (by its token or JWT, keeping that session with
     * `except_current`: "sign out my other devices").
     */
    async revokeAll(
      appId: string,
      input: SessionFields & {
        user_id?: string | undefined;
        except_current?: boolean | undefined;
        except_session_id?: string | undefined;
      },
      keyKind: ApiKeyKind = 'secret',
    ) {
      if (input.except_current !== undefined && input.user_id !== undefined) {
        throw new LatchkeyError('invalid_field', 'except_current goes with a session_token or session_jwt.', {
          field: 'except_current',
        });
      }
      if (input.except_session_id !== undefined && input.user_id === undefined) {
        throw new LatchkeyError(
          'invalid_field',
          'except_session_id goes with user_id; with a session, send except_current.',
          { field: 'except_session_id' },
        );
      }
      const { userId, current } = await subject(appId, input, keyKind);
      const keep = current ? (input.except_current ? current.id : undefined) : input.except_session_id;
      const revoked = await k.storage.sessions.revokeByUser(
        appId,
        userId,
        k.now(),
        keep,
        current ? 'user' : 'admin',
      );
      for (const s of revoked) issuedJwts.forget(s.id);
      return {
        message: `${revoked.length} session${revoked.length === 1 ? '' : 's'} revoked.`,
        user_id: userId,
        session_ids: revoked.map((s) => s.id),
        current: current !== null && revoked.some((s) => s.id === current.id),
      };
    },

    /**
     * The user's live sessions, the most recently active first: the user the secret key names,
     * or the caller's own (by its token or JWT, which is then marked `current`).
     */
    async list(
      appId: string,
      input: ListSessionsInput,
      keyKind: ApiKeyKind = 'secret',
    ): Promise<{ sessions: ListedSession[] }> {
      const { userId, current } = await subject(appId, input, keyKind);
      const sessions = await k.storage.sessions.listLiveByUser(appId, userId, k.now());
      return { sessions: sessions.map((s) => listed(s, current?.id)) };
    },

    /**
     * The App's sessions revoked since `since` (Unix s) whose JWTs may still be live: what edge
     * middleware, which holds no database, polls to refuse them before they expire.
     */
    async revocations(appId: string, input: { since?: number | undefined }) {
      const app = await k.app(appId);
      const now = k.now();
      const floor = now - app.settings.sessions.jwt_lifetime_seconds - SKEW_SECONDS;
      const since = Math.max(input.since ?? floor, floor);
      const read = k.storage.sessions.revokedSince;
      if (read === undefined)
        throw new LatchkeyError('storage_feature_missing', 'This storage keeps no record of revocations.');
      const found = await read.call(k.storage.sessions, since, appId);
      return {
        revocations: found.map((r) => ({ session_id: r.session_id, revoked_at: r.revoked_at })),
        since,
        until: now,
      };
    },
    /**
     * Whether this process's set of revoked sessions is current (`live`), and so whether jwt mode
     * is refusing revoked sessions without reading storage (revoked-sessions.ts).
     */
    revocationState: () => revoked.state(),
    /**
     * Starts listening for revocations now rather than at the first jwt-mode check (until then,
     * and until caught up, jwt-mode checks read storage); resolves with the state once the first
     * attempt ends. A host may await it before it starts serving.
     */
    async watchRevocations() {
      await revoked.watch();
      return revoked.state();
    },
    /** Stops listening for revocations (`latchkey.close()` calls it). */
    closeRevocations: () => revoked.close(),

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
  // Two literals, not a spread of one into the other: this runs on every request a JWT already
  // seen makes, and a spread copy (a second object, a slower shape) cost an organization's
  // session about five times a plain one's check (docs/benchmarks.md, issue 37's row).
  if (claims.organization_id === undefined)
    return {
      app_id: appId,
      user_id: claims.sub,
      session_id: claims.sid,
      factors: claims.factors,
      auth_time: authTime(claims.factors),
      expires_at: claims.exp,
    };
  return {
    app_id: appId,
    user_id: claims.sub,
    session_id: claims.sid,
    factors: claims.factors,
    auth_time: authTime(claims.factors),
    expires_at: claims.exp,
    organization_id: claims.organization_id,
    roles: claims.roles ?? [],
    permissions: claims.permissions ?? [],
  };
}
