import { LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { SessionService } from '../sessions/service.js';
import type { Factor } from '../shared/factor.js';
import { requireUser } from '../shared/require-user.js';
import { completeSignIn, type SignInRequest } from '../sign-in/complete.js';
import { base32Secret, matchingStep, provisioningUri, TOTP_PERIOD_SECONDS } from './code-check.js';
import { qrPngDataUrl } from './qr-png.js';
import type { RecoveryCodeRecord, TotpRecord } from './repo.js';
import type { CreateTotpRequest } from './schema.js';

const RECOVERY_CODES = 10;
const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
const DEFAULT_EXPIRES_IN_MINUTES = 30;

/** A TOTP code and a recovery code both prove the same method: the user's TOTP. */
const totpMethod = (totp: TotpRecord, verifiedAt: number): Extract<Factor, { type: 'totp' }>['method'] => ({
  method_id: totp.id,
  method_type: 'totp',
  totp_id: totp.id,
  last_verified_at: verifiedAt,
});

export type TotpService = ReturnType<typeof totpService>;

export function totpService(k: Kernel, sessions: SessionService) {
  const secretContext = (t: Pick<TotpRecord, 'app_id' | 'id'>) => `latchkey/totp/${t.app_id}/${t.id}`;
  // Bound to the TOTP, so a code of one TOTP never matches another's.
  const hashRecoveryCode = (totpId: string, code: string) =>
    k.hasher.hash('recovery_code', `${totpId}:${code.toLowerCase().replace(/[\s-]/g, '')}`);

  function newRecoveryCode(): string {
    const bytes = k.random.bytes(10);
    const chars = Array.from(bytes, (b) => CROCKFORD[b & 31]).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  }

  async function openSecret(totp: TotpRecord) {
    return k.vault.open(totp.sealed_secret, secretContext(totp));
  }

  const lockedError = (errorType: 'totp_locked' | 'recovery_code_locked', until: number, now: number) =>
    new LatchkeyError(errorType, undefined, { retryAfter: Math.max(1, until - now) });

  /**
   * Checks one TOTP code under the lock-out: storage first counts the attempt (or refuses while
   * locked) in one atomic step, and only then is the code checked, so a burst of guesses sent
   * at once gets no more checks than the limit. The step the code matched, or an error.
   */
  async function checkCode(appId: string, totp: TotpRecord, code: string): Promise<number> {
    const { max_failures, lockout_minutes } = (await k.app(appId)).settings.totp;
    const now = k.now();
    const ticket = await k.storage.totps.beginCodeCheck(
      appId,
      totp.id,
      now,
      max_failures,
      lockout_minutes * 60,
    );
    if (!ticket) throw new LatchkeyError('totp_not_found');
    if (!ticket.granted) throw lockedError('totp_locked', ticket.locked_until, now);
    const step = matchingStep(await openSecret(ticket.totp), code, k.clock.now());
    if (step !== null) return step;
    // This attempt used the last one the limit allows: say so now rather than on the next.
    const lockedUntil = ticket.totp.locked_until;
    const locked = lockedUntil !== null && lockedUntil > now;
    // The attempt was counted before the check, so the failure is known only here.
    await k.emit({
      app_id: appId,
      type: locked ? 'sign_in.locked_out' : 'sign_in.failed',
      data: {
        method: 'totp',
        user_id: totp.user_id,
        totp_id: totp.id,
        ...(locked ? { locked_until: lockedUntil } : {}),
      },
    });
    if (locked) throw lockedError('totp_locked', lockedUntil, now);
    throw new LatchkeyError('totp_code_invalid');
  }

  async function requireActive(appId: string, userId: string) {
    const totp = await k.storage.totps.getForUser(appId, userId);
    if (totp?.status !== 'active') throw new LatchkeyError('totp_not_found');
    return totp;
  }

  return {
    /** A pending TOTP with its secret, QR code and recovery codes (shown this once). */
    async create(appId: string, input: CreateTotpRequest) {
      const app = await k.app(appId);
      const user = await requireUser(k.storage.users, appId, input.user_id);
      const now = k.now();
      const secret = k.random.bytes(20);
      const id = k.id('totp');
      const totp: TotpRecord = {
        id,
        app_id: appId,
        user_id: user.id,
        sealed_secret: await k.vault.seal(secret, secretContext({ app_id: appId, id })),
        status: 'pending',
        expires_at: now + (input.expires_in ?? DEFAULT_EXPIRES_IN_MINUTES) * 60,
        last_used_step: null,
        failed_attempts: 0,
        locked_until: null,
        recovery_failed_attempts: 0,
        recovery_locked_until: null,
        verified_at: null,
        created_at: now,
      };
      const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
      const records: RecoveryCodeRecord[] = codes.map((code) => ({
        id: k.id('totp'),
        app_id: appId,
        user_id: user.id,
        totp_id: id,
        code_hash: hashRecoveryCode(id, code),
        used_at: null,
        created_at: now,
      }));
      if (!(await k.storage.totps.createPending(totp, records)).created)
        throw new LatchkeyError('totp_already_active');
      const [email] = await k.storage.emails.listByUser(appId, user.id);
      const [phone] = email ? [] : await k.storage.phoneNumbers.listByUser(appId, user.id);
      const uri = provisioningUri(secret, app.name, email?.address ?? phone?.address ?? user.id);
      return {
        user_id: user.id,
        secret: base32Secret(secret),
        totp_id: id,
        recovery_codes: codes,
        qr_base64: await qrPngDataUrl(uri, { margin: 2, scale: 4 }),
      };
    },

    /** Activates the user's pending TOTP with a first code, inside its window. */
    async verify(appId: string, input: { user_id: string; totp_code: string }) {
      await requireUser(k.storage.users, appId, input.user_id);
      const totp = await k.storage.totps.getForUser(appId, input.user_id);
      if (!totp) throw new LatchkeyError('totp_not_found');
      if (totp.status === 'active') throw new LatchkeyError('totp_already_active');
      const now = k.now();
      if (totp.expires_at <= now) throw new LatchkeyError('totp_expired');
      const step = await checkCode(appId, totp, input.totp_code);
      const active = await k.storage.totps.activate(appId, totp.id, now, step);
      if (!active) throw new LatchkeyError('totp_already_active');
      return { user_id: active.user_id, totp_id: active.id, status: 'active' as const };
    },

    /** Signs in with a code from the user's active TOTP; applies the session rules. */
    async authenticate(appId: string, input: { user_id: string; totp_code: string } & SignInRequest) {
      await requireUser(k.storage.users, appId, input.user_id);
      const totp = await requireActive(appId, input.user_id);
      const step = await checkCode(appId, totp, input.totp_code);
      if (!(await k.storage.totps.useStep(appId, totp.id, step))) throw new LatchkeyError('totp_code_used');
      const factor: Factor = {
        type: 'totp',
        delivery_channel: 'authenticator_app',
        method: totpMethod(totp, k.now()),
      };
      return {
        totp_id: totp.id,
        ...(await completeSignIn(sessions, appId, { userId: totp.user_id, factor }, input)),
      };
    },

    /** Signs in with a single-use recovery code instead of a TOTP code. */
    async recover(appId: string, input: { user_id: string; recovery_code: string } & SignInRequest) {
      await requireUser(k.storage.users, appId, input.user_id);
      const totp = await requireActive(appId, input.user_id);
      const { recovery_max_failures, lockout_minutes } = (await k.app(appId)).settings.totp;
      const now = k.now();
      // Checked in storage (a keyed hash lookup) under the recovery lock-out, in one atomic step.
      const result = await k.storage.totps.consumeRecoveryCode(
        appId,
        totp.id,
        hashRecoveryCode(totp.id, input.recovery_code),
        now,
        recovery_max_failures,
        lockout_minutes * 60,
      );
      if (!result.ok) {
        if (result.reason === 'used') throw new LatchkeyError('recovery_code_used');
        if (result.locked_until !== null && result.locked_until > now)
          throw lockedError('recovery_code_locked', result.locked_until, now);
        throw new LatchkeyError('recovery_code_invalid');
      }
      const factor: Factor = {
        type: 'recovery_code',
        delivery_channel: 'recovery_code',
        method: totpMethod(totp, now),
      };
      return {
        totp_id: totp.id,
        ...(await completeSignIn(sessions, appId, { userId: totp.user_id, factor }, input)),
      };
    },

    async delete(appId: string, totpId: string) {
      const removed = await k.storage.totps.delete(appId, totpId);
      if (!removed) throw new LatchkeyError('totp_not_found');
      return { message: 'The TOTP was deleted.', user_id: removed.user_id };
    },
  };
}

export { TOTP_PERIOD_SECONDS };
