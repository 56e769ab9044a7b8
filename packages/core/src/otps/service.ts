import { type Channel, channelOfMethodId, channels, contactRepo } from '../contacts/channels.js';
import { type FindOrCreateStep, findOrCreateByContact } from '../contacts/find-or-create.js';
import { timingSafeEqual, utf8 } from '../crypto/encoding.js';
import { type ErrorType, LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import { checkSmsDestination } from '../messages/sms-policy.js';
import { renderTemplate } from '../messages/template.js';
import type { OutboundMessage } from '../ports/sender.js';
import { checkSendLimits, type PendingHit } from '../rate-limits/send-limits.js';
import type { SessionService } from '../sessions/service.js';
import type { DeviceFingerprint } from '../shared/device-fingerprint.js';
import { deviceRequirement } from '../shared/device-match.js';
import { emailFactorMethod, type Factor, phoneNumberFactorMethod } from '../shared/factor.js';
import { completeSignIn, contactOwner } from '../sign-in/complete.js';
import type { ContactRecord } from '../users/repo.js';
import { otpCodeFor } from './code.js';
import type { OtpConsumeFailure, OtpRecord } from './repo.js';
import type { SendOtpResponse, VerifyOtpRequest, VerifyOtpResponse } from './schema.js';

export interface SendInput {
  address: string;
  user_id?: string | undefined;
  expiration_minutes?: number | undefined;
  device_fingerprint?: DeviceFingerprint | undefined;
}

export interface LoginOrCreateInput extends Omit<SendInput, 'user_id'> {
  create_user_as_pending?: boolean | undefined;
}

const failures: Record<OtpConsumeFailure, ErrorType> = {
  not_found: 'otp_code_not_found',
  used: 'otp_code_used',
  too_many_attempts: 'otp_code_too_many_attempts',
  expired: 'otp_code_expired',
  mismatch: 'otp_code_invalid',
  device_mismatch: 'device_fingerprint_mismatch',
};

export type OtpService = ReturnType<typeof otpService>;

export function otpService(k: Kernel, sessions: SessionService) {
  /** The code's hash is bound to its method, so one code typed into another method never matches. */
  const hashCode = (methodId: string, code: string) => k.hasher.hash('otp', `${methodId}:${code}`);

  /**
   * Whether a message may go to this address: the App's SMS destinations, then its message
   * limits. Called before anything is written, so a refused call leaves no user, contact or code.
   */
  async function checkAllowed(appId: string, channel: Channel, address: string, also?: PendingHit) {
    const app = await k.app(appId);
    if (channel.name === 'sms') await checkSmsDestination(app.settings.sms, address);
    await checkSendLimits(k, app, address, channel.name, { also });
  }

  /**
   * The code the owner already holds, when it is still usable: a resend sends it again rather
   * than voiding it, so whoever asks for codes to someone else's address cannot take away the
   * one they are typing (docs/otp-and-sessions.md).
   */
  async function liveCode(appId: string, methodId: string, maxAttempts: number, now: number) {
    const live = await k.storage.otps.get(appId, methodId);
    if (!live || live.used_at !== null || live.expires_at <= now || live.attempts >= maxAttempts) return null;
    const code = otpCodeFor(k.hasher, live.id);
    // A code stored before codes were derived cannot be sent again: a fresh one replaces it.
    return timingSafeEqual(utf8(hashCode(methodId, code)), utf8(live.code_hash))
      ? { code, minutes: Math.ceil((live.expires_at - now) / 60) }
      : null;
  }

  /** A new code for the contact, not yet stored: the record to store, and the code to send. */
  function newCode(appId: string, contact: ContactRecord, input: SendInput, minutes: number, now: number) {
    const id = k.id('otp');
    const code = otpCodeFor(k.hasher, id);
    const record: OtpRecord = {
      id,
      app_id: appId,
      method_id: contact.id,
      user_id: contact.user_id,
      code_hash: hashCode(contact.id, code),
      attempts: 0,
      expires_at: now + minutes * 60,
      used_at: null,
      device_fingerprint: input.device_fingerprint ?? null,
      created_at: now,
    };
    return { code, minutes, record };
  }

  /**
   * Sends the contact its live code, or stores a new one and sends that; `checkAllowed` has
   * passed. `fresh`: the contact was created by this call, so it has no code yet to look for.
   * `stored`: the code the call that created the contact stored with it.
   */
  async function deliver(
    appId: string,
    channel: Channel,
    contact: ContactRecord,
    input: SendInput,
    fresh = false,
    stored?: { code: string; minutes: number },
  ) {
    const app = await k.app(appId);
    const now = k.now();
    const storeNew = async () => {
      const minutes = input.expiration_minutes ?? app.settings.otp.expires_in_minutes;
      const made = newCode(appId, contact, input, minutes, now);
      await k.storage.otps.replace(made.record);
      return made;
    };
    const kept =
      stored ?? (fresh ? null : await liveCode(appId, contact.id, app.settings.otp.max_attempts, now));
    const { code, minutes } = kept ?? (await storeNew());
    const values = { app_name: app.name, code, minutes: String(minutes) };
    const m = app.settings.messages;
    const message: OutboundMessage =
      channel.name === 'sms'
        ? {
            channel: 'sms',
            kind: 'otp',
            to: contact.address,
            app_id: appId,
            code,
            text: renderTemplate(m.otp_sms, values),
          }
        : {
            channel: 'email',
            kind: 'otp',
            to: contact.address,
            app_id: appId,
            code,
            subject: renderTemplate(m.otp_email_subject, values),
            text: renderTemplate(m.otp_email_text, values),
          };
    await k.sender.send(message);
  }

  /**
   * Where the repo can, the find-or-create that stores a new contact's first code in the same
   * step (one statement on Postgres instead of two); `stored` hears of the code when it was.
   * Undefined when the repo cannot: the code is stored after, as for a found contact.
   */
  async function withFirstCode(
    appId: string,
    channel: Channel,
    input: SendInput,
    stored: (code: { code: string; minutes: number }) => void,
  ) {
    const repo = contactRepo(k.storage, channel);
    const oneStep = repo.findOrCreateWithUserAndOtp?.bind(repo);
    if (!oneStep) return undefined;
    const app = await k.app(appId);
    const minutes = input.expiration_minutes ?? app.settings.otp.expires_in_minutes;
    const step: FindOrCreateStep = async (user, contact) => {
      const made = newCode(appId, contact, input, minutes, k.now());
      const found = await oneStep(user, contact, made.record);
      if (found.user_created) stored(made);
      return found;
    };
    return step;
  }

  /**
   * The contact with this address for `userId`, read only: null when the user has it not yet
   * (it is added once the send is allowed).
   */
  async function existingContactOf(appId: string, channel: Channel, address: string, userId: string) {
    const user = await k.storage.users.get(appId, userId);
    if (!user) throw new LatchkeyError('user_not_found');
    const contact = await contactRepo(k.storage, channel).findByAddress(appId, address);
    if (contact && contact.user_id !== userId) throw new LatchkeyError(channel.belongsToAnother);
    return contact;
  }

  /** Adds the address to `userId`; a concurrent add of the same address by another user loses. */
  async function addContact(appId: string, channel: Channel, address: string, userId: string) {
    const repo = contactRepo(k.storage, channel);
    const fresh = {
      id: k.id(channel.idPrefix),
      app_id: appId,
      user_id: userId,
      address,
      verified_at: null,
      created_at: k.now(),
    };
    const contact = (await repo.insert(fresh)).inserted ? fresh : await repo.findByAddress(appId, address);
    if (!contact || contact.user_id !== userId) throw new LatchkeyError(channel.belongsToAnother);
    return contact;
  }

  /**
   * The contact a send goes to, once the send is allowed: an existing one, or for `userId` the
   * address newly added to that user (only after the checks, so a refused send adds nothing).
   */
  async function allowedContact(appId: string, channel: Channel, address: string, userId?: string) {
    if (userId === undefined) {
      const found = await contactRepo(k.storage, channel).findByAddress(appId, address);
      if (!found) throw new LatchkeyError(channel.notFound);
      await checkAllowed(appId, channel, address);
      return found;
    }
    const existing = await existingContactOf(appId, channel, address, userId);
    await checkAllowed(appId, channel, address);
    return existing ?? (await addContact(appId, channel, address, userId));
  }

  const response = (
    channel: Channel,
    contact: ContactRecord,
    extra: { user_created?: boolean } = {},
  ): SendOtpResponse => ({
    method_id: contact.id,
    user_id: contact.user_id,
    [channel.idField]: contact.id,
    ...extra,
  });

  return {
    /** Sends a code to an address of an existing user (or adds it to `user_id`). */
    async send(
      appId: string,
      channelName: keyof typeof channels,
      input: SendInput,
    ): Promise<SendOtpResponse> {
      const channel = channels[channelName];
      const address = await channel.normalize(input.address);
      const contact = await allowedContact(appId, channel, address, input.user_id);
      await deliver(appId, channel, contact, input);
      return response(channel, contact);
    },

    /**
     * Sends a code to an address, creating the user when the App has none with it. `limits.also`:
     * a window of this request counted with the send's own, in the same step (the route's).
     */
    async loginOrCreate(
      appId: string,
      channelName: keyof typeof channels,
      input: LoginOrCreateInput,
      limits: { also?: PendingHit | undefined } = {},
    ): Promise<SendOtpResponse> {
      const channel = channels[channelName];
      const address = await channel.normalize(input.address);
      let stored: { code: string; minutes: number } | undefined;
      // Before the user is created: a refused send must not leave one behind.
      await checkAllowed(appId, channel, address, limits.also);
      const { contact, user_created } = await findOrCreateByContact(k, appId, channel, address, {
        pending: input.create_user_as_pending ?? false,
        together: await withFirstCode(appId, channel, input, (code) => {
          stored = code;
        }),
      });
      await deliver(appId, channel, contact, input, user_created, user_created ? stored : undefined);
      return response(channel, contact, { user_created });
    },

    /** Checks a code; marks the method verified and applies the session rules. */
    async verify(appId: string, input: VerifyOtpRequest): Promise<VerifyOtpResponse> {
      const app = await k.app(appId);
      const channel = channelOfMethodId(input.method_id);
      if (!channel) throw new LatchkeyError('otp_code_not_found');
      const now = k.now();
      const result = await k.storage.otps.consume(
        appId,
        input.method_id,
        hashCode(input.method_id, input.otp),
        now,
        app.settings.otp.max_attempts,
        // Checked in the same atomic step: a wrong device counts an attempt and spends nothing.
        deviceRequirement(app.settings.otp.device_fingerprint_match, input.device_fingerprint),
      );
      if (!result.ok) throw new LatchkeyError(failures[result.reason]);
      const contact = await contactRepo(k.storage, channel).markVerified(appId, input.method_id, now);
      if (!contact) throw new LatchkeyError('otp_code_not_found');
      const user = await contactOwner(k, appId, contact.user_id, now, 'otp_code_not_found');
      const factor: Factor =
        channel.name === 'sms'
          ? { type: 'otp', delivery_channel: 'sms', method: phoneNumberFactorMethod(contact, now) }
          : { type: 'otp', delivery_channel: 'email', method: emailFactorMethod(contact, now) };
      return {
        method_id: contact.id,
        method_type: channel.methodType,
        ...(await completeSignIn(sessions, appId, { userId: user.id, factor }, input)),
      };
    },
  };
}

export { fingerprintMatches } from '../shared/device-match.js';
