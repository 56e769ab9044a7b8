import { sha256 } from '@noble/hashes/sha2.js';
import type { AppRecord } from '../apps/repo.js';
import { channels } from '../contacts/channels.js';
import { normalizeEmail } from '../contacts/contact-address.js';
import { findOrCreateByContact } from '../contacts/find-or-create.js';
import { newUserRecords } from '../contacts/new-user-records.js';
import { toHex, utf8 } from '../crypto/encoding.js';
import { newSecret } from '../crypto/ids.js';
import { type ErrorType, LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { MagicLinkConsumeFailure } from '../magic-links/repo.js';
import { renderHtmlTemplate, renderTemplate } from '../messages/template.js';
import type { PasswordService } from '../passwords/service.js';
import { checkSendLimits } from '../rate-limits/send-limits.js';
import type { SessionService } from '../sessions/service.js';
import { emailFactorMethod, type Factor } from '../shared/factor.js';
import { chooseRedirect, withToken } from '../shared/redirect-url.js';
import { factorsMeetStepUp } from '../shared/step-up-rule.js';
import { completeSignIn, contactOwner } from '../sign-in/complete.js';
import type { ContactRecord } from '../users/repo.js';
import { dummyVerify, storedFromImport } from './hashing/index.js';
import type { BreachedPasswords, PasswordHasher } from './ports.js';
import type { PasswordChangeReason } from './repo.js';
import type {
  AuthenticatePasswordRequest,
  CreatePasswordRequest,
  MigratePasswordRequest,
  MigratePasswordResponse,
  PasswordSignedInResponse,
  ResetByEmailRequest,
  ResetByExistingRequest,
  ResetBySessionRequest,
  ResetStartRequest,
} from './schema.js';

/** Who is calling, as the HTTP layer knows it: the key used and the client's address. */
export interface CallerContext {
  keyKind: 'secret' | 'public';
  /** The connecting client's IP (the host's `clientIp`), when known. */
  clientIp?: string | undefined;
}

const resetFailures: Record<MagicLinkConsumeFailure, ErrorType> = {
  not_found: 'password_reset_not_found',
  used: 'password_reset_used',
  expired: 'password_reset_expired',
  // Reset links ask no device and allow no failed uses: these cannot happen.
  too_many_attempts: 'password_reset_not_found',
  device_mismatch: 'password_reset_not_found',
};

/** Reset links check no device, so a link is spent by its first use only. */
const RESET_MAX_ATTEMPTS = 1;

export type PasswordAuthService = ReturnType<typeof passwordAuthService>;

export function passwordAuthService(
  k: Kernel,
  sessions: SessionService,
  strength: PasswordService,
  ports: { hasher: PasswordHasher; breached?: BreachedPasswords | undefined },
) {
  const { hasher, breached } = ports;
  const hashResetToken = (token: string) => k.hasher.hash('password_reset', token);
  const passwordFactor = (contact: ContactRecord, now: number): Factor => ({
    type: 'password',
    delivery_channel: 'knowledge',
    method: emailFactorMethod(contact, now),
  });

  /** Refuses a password the App would not let anyone choose: too weak, or in a breach corpus. */
  async function checkAcceptable(appId: string, password: string, field: string, email?: string) {
    const check = await strength.strengthCheck(appId, { password, ...(email ? { email } : {}) });
    if (!check.valid_password) {
      const hint = [check.feedback.warning, ...check.feedback.suggestions].filter(Boolean).join(' ');
      throw new LatchkeyError(
        'weak_password',
        hint ? `The password is too easy to guess. ${hint}` : undefined,
        { field },
      );
    }
    if (breached && (await breached.isBreached(password)))
      throw new LatchkeyError('breached_password', undefined, { field });
  }

  /**
   * The per-IP limit on password checks. A public token's caller is counted by the connection's
   * address only: an address in its body is the caller's own word, and changing it would dodge
   * the limit. A secret-key caller (a host's backend, signing its users in) names the user's.
   */
  async function checkIpLimit(app: AppRecord, caller: CallerContext, bodyIp: string | undefined) {
    const ip = (caller.keyKind === 'secret' ? bodyIp : undefined) ?? caller.clientIp;
    if (ip === undefined) return;
    const rule = app.settings.passwords.per_ip;
    const d = await k.rateLimiter.hit(`password:ip:${app.id}:${ip}`, rule.limit, rule.window_seconds);
    if (!d.allowed) throw new LatchkeyError('rate_limited', undefined, { retryAfter: d.retryAfter });
  }

  /**
   * Checks an email and password under the account lock-out. An unknown email (or a user
   * without a password) costs the same work, a limiter count of the same size and the same
   * answer as a wrong password, so neither the answer nor its time tells whether the account
   * exists. A right password that is not current Argon2id is rehashed in the same step that
   * clears the count.
   */
  async function verifyEmailPassword(app: AppRecord, email: string, password: string) {
    const s = app.settings.passwords;
    const lockSeconds = s.lockout_minutes * 60;
    const address = normalizeEmail(email);
    const now = k.now();
    const contact = await k.storage.emails.findByAddress(app.id, address);
    const user = contact ? await k.storage.users.get(app.id, contact.user_id) : null;
    const ticket =
      contact && user
        ? await k.storage.passwords.beginCheck(app.id, contact.user_id, now, s.max_failures, lockSeconds)
        : null;
    if (!contact || !user || !ticket) {
      const key = `password:unknown:${app.id}:${toHex(sha256(utf8(address))).slice(0, 32)}`;
      const d = await k.rateLimiter.hit(key, s.max_failures, lockSeconds);
      if (!d.allowed) throw new LatchkeyError('password_locked', undefined, { retryAfter: d.retryAfter });
      await dummyVerify(hasher);
      throw new LatchkeyError('invalid_credentials');
    }
    if (!ticket.granted)
      throw new LatchkeyError('password_locked', undefined, {
        retryAfter: Math.max(1, ticket.locked_until - now),
      });
    const stored = ticket.password.hash;
    const result = await hasher.verify(password, stored);
    if (!result.ok) {
      const locked = ticket.password.locked_until !== null;
      await k.emit({
        app_id: app.id,
        type: locked ? 'sign_in.locked_out' : 'sign_in.failed',
        data: { method: 'password', user_id: contact.user_id, reason: 'mismatch' },
      });
      throw new LatchkeyError('invalid_credentials');
    }
    const rehash = result.needsRehash ? { from: stored, to: await hasher.hash(password) } : undefined;
    await k.storage.passwords.succeeded(app.id, contact.user_id, k.now(), rehash);
    return { contact, user };
  }

  /** Sets the user's password (a first one, or in place of the one they have). */
  async function setPassword(appId: string, userId: string, hash: string, reason: PasswordChangeReason) {
    const now = k.now();
    if (await k.storage.passwords.replace(appId, userId, hash, now, reason)) return;
    const first = { app_id: appId, user_id: userId, hash, failed_attempts: 0, locked_until: null };
    const { inserted } = await k.storage.passwords.insert(
      { ...first, created_at: now, updated_at: now },
      reason === 'imported' ? 'imported' : 'created',
    );
    // A concurrent first password won the insert: this later one replaces it.
    if (!inserted) await k.storage.passwords.replace(appId, userId, hash, now, reason);
  }

  /** A changed password ends the user's other sessions, unless the App chose otherwise. */
  async function afterChange(app: AppRecord, userId: string, keepSessionId?: string) {
    if (!app.settings.passwords.revoke_sessions_on_change) return;
    await k.storage.sessions.revokeByUser(app.id, userId, k.now(), keepSessionId, 'password_change');
  }

  /**
   * Tells the owner of a taken address that someone tried to sign up with it. Within the
   * address's message limits only, and silently beyond them: a refusal here would tell the
   * caller the address is taken.
   */
  async function sendTakenNotice(app: AppRecord, address: string) {
    try {
      await checkSendLimits(k, app, address);
    } catch (err) {
      if (err instanceof LatchkeyError && err.errorType === 'rate_limited') return;
      throw err;
    }
    const m = app.settings.messages;
    const values = { app_name: app.name };
    await k.sender.send({
      channel: 'email',
      kind: 'password_notice',
      to: address,
      app_id: app.id,
      subject: renderTemplate(m.password_signup_notice_subject, values),
      text: renderTemplate(m.password_signup_notice_text, values),
    });
  }

  /** A new user with this email (verified: no, since nothing proved it) and a password, atomically. */
  async function createUserWithPassword(appId: string, address: string, hash: string) {
    const { user, contact } = newUserRecords(k, appId, { idPrefix: 'email', address });
    const now = user.created_at;
    await k.storage.transaction(async (tx) => {
      await tx.users.insert(user);
      if (!(await tx.emails.insert(contact)).inserted) throw new LatchkeyError('duplicate_email');
      await tx.passwords.insert(
        {
          app_id: appId,
          user_id: user.id,
          hash,
          failed_attempts: 0,
          locked_until: null,
          created_at: now,
          updated_at: now,
        },
        'created',
      );
    });
    return contact;
  }

  return {
    /**
     * Creates a user with an email and password (or gives an existing user without a password
     * its first one, with the secret key). With the public token, when the App allows sign-up
     * by password: an address that has a user answers as a new one would (in `notice` mode) and
     * its owner gets a notice, so no session is issued to either (sign in with `authenticate`).
     */
    async create(
      appId: string,
      caller: CallerContext,
      input: CreatePasswordRequest,
    ): Promise<PasswordSignedInResponse> {
      const app = await k.app(appId);
      const s = app.settings.passwords;
      const isPublic = caller.keyKind === 'public';
      if (isPublic && !s.public_signup)
        throw new LatchkeyError(
          'secret_key_required',
          'This App does not allow sign-up by password with the public token (settings.passwords.public_signup).',
        );
      const address = normalizeEmail(input.email);
      await checkAcceptable(appId, input.password, 'password', address);
      // Hashed before the address is looked up: a taken address costs the same time as a new one.
      const hash = await hasher.hash(input.password);
      const secrecy = isPublic && s.taken_email === 'notice';
      const existing = await k.storage.emails.findByAddress(appId, address);
      let contact: ContactRecord | null = existing;
      if (existing && isPublic) {
        if (!secrecy) throw new LatchkeyError('duplicate_email', undefined, { field: 'email' });
        await sendTakenNotice(app, address);
        // Ids of the shape a new user gets, naming nothing.
        return { user_id: k.id('user'), email_id: k.id('email') };
      }
      if (existing) {
        const first = {
          app_id: appId,
          user_id: existing.user_id,
          hash,
          failed_attempts: 0,
          locked_until: null,
        };
        const now = k.now();
        const { inserted } = await k.storage.passwords.insert(
          { ...first, created_at: now, updated_at: now },
          'created',
        );
        if (!inserted)
          throw new LatchkeyError('duplicate_email', 'This user already has a password.', { field: 'email' });
      } else {
        try {
          contact = await createUserWithPassword(appId, address, hash);
        } catch (err) {
          // A concurrent sign-up took the address first.
          if (!(err instanceof LatchkeyError && err.errorType === 'duplicate_email')) throw err;
          if (!secrecy) throw new LatchkeyError('duplicate_email', undefined, { field: 'email' });
          await sendTakenNotice(app, address);
          return { user_id: k.id('user'), email_id: k.id('email') };
        }
      }
      if (!contact) throw new LatchkeyError('internal_error');
      if (secrecy) return { user_id: contact.user_id, email_id: contact.id };
      const signedIn = await completeSignIn(
        sessions,
        appId,
        { userId: contact.user_id, factor: passwordFactor(contact, k.now()) },
        input,
      );
      return { email_id: contact.id, ...signedIn };
    },

    /** Signs in by email and password; the session rules and answer of `otps/verify`. */
    async authenticate(
      appId: string,
      caller: CallerContext,
      input: AuthenticatePasswordRequest,
    ): Promise<PasswordSignedInResponse> {
      const app = await k.app(appId);
      await checkIpLimit(app, caller, input.device_fingerprint?.ip);
      const { contact, user } = await verifyEmailPassword(app, input.email, input.password);
      const signedIn = await completeSignIn(
        sessions,
        appId,
        { userId: user.id, factor: passwordFactor(contact, k.now()) },
        input,
      );
      return { email_id: contact.id, ...signedIn };
    },

    /**
     * Emails a reset link when a user has the address; answers the same either way. The
     * redirect is checked, and the address's message limits counted, before anything else.
     */
    async resetStart(appId: string, input: ResetStartRequest): Promise<{ email: string }> {
      const app = await k.app(appId);
      const address = normalizeEmail(input.email);
      const redirects = app.settings.redirect_urls;
      const url = chooseRedirect(
        input.reset_redirect_url,
        redirects.default_reset_password,
        redirects.reset_password,
        'reset_redirect_url',
      );
      await checkSendLimits(k, app, address);
      const contact = await k.storage.emails.findByAddress(appId, address);
      if (!contact) return { email: address };
      const minutes = input.expiration_minutes ?? app.settings.passwords.reset_expiration_minutes;
      const token = newSecret('', k.random, 32);
      const now = k.now();
      await k.storage.magicLinks.insert({
        id: k.id('magic'),
        app_id: appId,
        user_id: contact.user_id,
        email_id: contact.id,
        token_hash: hashResetToken(token),
        kind: 'password_reset',
        expires_at: now + minutes * 60,
        used_at: null,
        attempts: 0,
        device_fingerprint: null,
        created_at: now,
      });
      const link = withToken(url, token);
      const values = { app_name: app.name, url: link, minutes: String(minutes) };
      const m = app.settings.messages;
      await k.sender.send({
        channel: 'email',
        kind: 'password_reset',
        to: address,
        app_id: appId,
        url: link,
        subject: renderTemplate(m.password_reset_email_subject, values),
        text: renderTemplate(m.password_reset_email_text, values),
        html: renderHtmlTemplate(m.password_reset_email_html, values),
      });
      return { email: address };
    },

    /**
     * Sets a new password with a reset link's token (once): the link proves the email, so the
     * email is verified and a pending user activated; the session rules as for a sign-in.
     */
    async resetByEmail(appId: string, input: ResetByEmailRequest): Promise<PasswordSignedInResponse> {
      const app = await k.app(appId);
      // Checked and hashed before the token is spent: a refused password leaves the link usable.
      await checkAcceptable(appId, input.password, 'password');
      const hash = await hasher.hash(input.password);
      const now = k.now();
      const result = await k.storage.magicLinks.consume(
        appId,
        hashResetToken(input.token),
        now,
        RESET_MAX_ATTEMPTS,
        [],
      );
      if (!result.ok) throw new LatchkeyError(resetFailures[result.reason]);
      const { link } = result;
      if (link.kind !== 'password_reset') throw new LatchkeyError('password_reset_not_found');
      const contact = await k.storage.emails.markVerified(appId, link.email_id, now);
      if (!contact) throw new LatchkeyError('password_reset_not_found');
      const user = await contactOwner(k, appId, link.user_id, now, 'password_reset_not_found');
      await setPassword(appId, user.id, hash, 'reset_by_email');
      await afterChange(app, user.id);
      const factor: Factor = {
        type: 'magic_link',
        delivery_channel: 'email',
        method: emailFactorMethod(contact, now),
      };
      return {
        email_id: contact.id,
        ...(await completeSignIn(sessions, appId, { userId: user.id, factor }, input)),
      };
    },

    /** Changes a password by the current one (under the same limits as a sign-in). */
    async resetByExisting(
      appId: string,
      caller: CallerContext,
      input: ResetByExistingRequest,
    ): Promise<PasswordSignedInResponse> {
      const app = await k.app(appId);
      await checkAcceptable(appId, input.new_password, 'new_password', normalizeEmail(input.email));
      await checkIpLimit(app, caller, input.device_fingerprint?.ip);
      const { contact, user } = await verifyEmailPassword(app, input.email, input.existing_password);
      await setPassword(appId, user.id, await hasher.hash(input.new_password), 'reset_by_existing');
      await afterChange(app, user.id);
      return {
        email_id: contact.id,
        ...(await completeSignIn(
          sessions,
          appId,
          { userId: user.id, factor: passwordFactor(contact, k.now()) },
          input,
        )),
      };
    },

    /**
     * Sets the password of a session's user, when the session's latest proof is recent (the
     * App's `session_reset_max_age_minutes`): a stolen, old session cannot take the account.
     * The session itself stays; the user's others end.
     */
    async resetBySession(appId: string, input: ResetBySessionRequest) {
      const app = await k.app(appId);
      const fields = { session_token: input.session_token, session_jwt: input.session_jwt };
      const current = await sessions.authenticate(appId, fields);
      const maxAge = app.settings.passwords.session_reset_max_age_minutes * 60;
      if (!factorsMeetStepUp(current.session.factors, k.now(), maxAge, undefined))
        throw new LatchkeyError('reauthentication_required');
      const emails = await k.storage.emails.listByUser(appId, current.user_id);
      await checkAcceptable(appId, input.password, 'password', emails[0]?.address);
      await setPassword(appId, current.user_id, await hasher.hash(input.password), 'reset_by_session');
      await afterChange(app, current.user_id, current.session.id);
      const after = await sessions.authenticate(appId, {
        ...fields,
        session_expires_in: input.session_expires_in,
      });
      return after;
    },

    /**
     * Imports a hash another system made (`hashing/import.ts` lists the forms), creating the
     * user when the email is new; the first sign-in rehashes it to Argon2id.
     */
    async migrate(appId: string, input: MigratePasswordRequest): Promise<MigratePasswordResponse> {
      const { email, ...imported } = input;
      const stored = storedFromImport(imported);
      const address = normalizeEmail(email);
      const { contact, user_created } = await findOrCreateByContact(k, appId, channels.email, address, {
        pending: false,
      });
      await setPassword(appId, contact.user_id, stored, 'imported');
      return { user_id: contact.user_id, email_id: contact.id, user_created };
    },
  };
}
