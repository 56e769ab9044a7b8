import QRCode from 'qrcode';
import { LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { SessionFields, SessionService } from '../sessions/service.js';
import { base32Secret, matchingStep, provisioningUri, TOTP_PERIOD_SECONDS } from './code-check.js';
import type { RecoveryCodeRecord, TotpRecord } from './repo.js';
import type { CreateTotpRequest } from './schema.js';

const RECOVERY_CODES = 10;
const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
const DEFAULT_EXPIRES_IN_MINUTES = 30;

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

  async function requireUser(appId: string, userId: string) {
    const user = await k.storage.users.get(appId, userId);
    if (!user) throw new LatchkeyError('user_not_found');
    return user;
  }

  async function openSecret(totp: TotpRecord) {
    return k.vault.open(totp.sealed_secret, secretContext(totp));
  }

  /** Checks a code against an active TOTP, with replay refusal and the lock-out; returns it. */
  async function checkActive(appId: string, userId: string, check: (totp: TotpRecord) => Promise<boolean>) {
    const app = await k.app(appId);
    const totp = await k.storage.totps.getForUser(appId, userId);
    if (totp?.status !== 'active') throw new LatchkeyError('totp_not_found');
    const now = k.now();
    if (totp.locked_until !== null && totp.locked_until > now) {
      throw new LatchkeyError('totp_locked', undefined, { retryAfter: totp.locked_until - now });
    }
    if (!(await check(totp))) {
      const { max_failures, lockout_minutes } = app.settings.totp;
      const after = await k.storage.totps.recordFailure(
        appId,
        totp.id,
        now,
        max_failures,
        lockout_minutes * 60,
      );
      if (after?.locked_until && after.locked_until > now) {
        throw new LatchkeyError('totp_locked', undefined, { retryAfter: after.locked_until - now });
      }
      return null;
    }
    return totp;
  }

  return {
    /** A pending TOTP with its secret, QR code and recovery codes (shown this once). */
    async create(appId: string, input: CreateTotpRequest) {
      const app = await k.app(appId);
      const user = await requireUser(appId, input.user_id);
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
        qr_base64: await QRCode.toDataURL(uri, { type: 'image/png', errorCorrectionLevel: 'M', margin: 2 }),
      };
    },

    /** Activates the user's pending TOTP with a first code, inside its window. */
    async verify(appId: string, input: { user_id: string; totp_code: string }) {
      await requireUser(appId, input.user_id);
      const totp = await k.storage.totps.getForUser(appId, input.user_id);
      if (!totp) throw new LatchkeyError('totp_not_found');
      if (totp.status === 'active') throw new LatchkeyError('totp_already_active');
      const now = k.now();
      if (totp.expires_at <= now) throw new LatchkeyError('totp_expired');
      const step = matchingStep(await openSecret(totp), input.totp_code, k.clock.now());
      if (step === null) throw new LatchkeyError('totp_code_invalid');
      const active = await k.storage.totps.activate(appId, totp.id, now, step);
      if (!active) throw new LatchkeyError('totp_already_active');
      return { user_id: active.user_id, totp_id: active.id, status: 'active' as const };
    },

    /** Signs in with a code from the user's active TOTP; applies the session rules. */
    async authenticate(appId: string, input: { user_id: string; totp_code: string } & SessionFields) {
      await requireUser(appId, input.user_id);
      let step: number | null = null;
      const totp = await checkActive(appId, input.user_id, async (t) => {
        step = matchingStep(await openSecret(t), input.totp_code, k.clock.now());
        return step !== null;
      });
      if (!totp || step === null) throw new LatchkeyError('totp_code_invalid');
      if (!(await k.storage.totps.useStep(appId, totp.id, step))) throw new LatchkeyError('totp_code_used');
      const now = k.now();
      const factor = {
        type: 'totp',
        delivery_channel: 'authenticator_app',
        method: { method_id: totp.id, method_type: 'totp', totp_id: totp.id, last_verified_at: now },
      };
      return {
        user_id: totp.user_id,
        totp_id: totp.id,
        ...(await sessions.issue(appId, totp.user_id, factor, input)),
      };
    },

    /** Signs in with a single-use recovery code instead of a TOTP code. */
    async recover(appId: string, input: { user_id: string; recovery_code: string } & SessionFields) {
      await requireUser(appId, input.user_id);
      let used = false;
      const now = k.now();
      const totp = await checkActive(appId, input.user_id, async (t) => {
        const result = await k.storage.totps.consumeRecoveryCode(
          appId,
          t.id,
          hashRecoveryCode(t.id, input.recovery_code),
          now,
        );
        used = !result.ok && result.reason === 'used';
        return result.ok;
      });
      if (!totp) throw new LatchkeyError(used ? 'recovery_code_used' : 'recovery_code_invalid');
      const factor = {
        type: 'recovery_code',
        delivery_channel: 'recovery_code',
        method: { method_id: totp.id, method_type: 'totp', totp_id: totp.id, last_verified_at: now },
      };
      return {
        user_id: totp.user_id,
        totp_id: totp.id,
        ...(await sessions.issue(appId, totp.user_id, factor, input)),
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
