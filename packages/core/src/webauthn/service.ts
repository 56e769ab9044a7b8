import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { z } from 'zod';
import type { ApiKeyKind } from '../apps/repo.js';
import { fromBase64Url, toBase64Url, utf8 } from '../crypto/encoding.js';
import { type ErrorType, LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { SessionService } from '../sessions/service.js';
import type { Factor } from '../shared/factor.js';
import { requireUser } from '../shared/require-user.js';
import { completeSignIn } from '../sign-in/complete.js';
import type { UserRecord } from '../users/repo.js';
import { webauthnLibrary } from './library.js';
import { allowedRpId, isAllowedOrigin, isDomainAllowed } from './origin.js';
import { registrantUserId } from './registrant.js';
import type {
  AuthenticatorType,
  WebAuthnCeremony,
  WebAuthnChallengeConsumeFailure,
  WebAuthnChallengeRecord,
  WebAuthnCredentialRecord,
} from './repo.js';
import type {
  AuthenticationBeginRequest,
  AuthenticationCompleteRequest,
  AuthenticationCompleteResponse,
  CreationOptions,
  Registrant,
  RegistrationBeginRequest,
  RegistrationCreateRequest,
  RequestOptions,
} from './schema.js';

/** How long the browser may take, and so how long a challenge lives (WebAuthn's suggested 5 minutes). */
export const WEBAUTHN_TIMEOUT_MS = 300_000;

/** EdDSA, ES256, RS256: what passkeys and security keys use. Offered and accepted alike. */
const ALGORITHMS = [-8, -7, -257];

/** Spent challenges are kept this long, so a replay is told `used` rather than `not found`. */
const CHALLENGE_RETENTION_SECONDS = 3600;

const KNOWN_TRANSPORTS = new Set(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']);

const challengeFailures: Record<WebAuthnChallengeConsumeFailure, ErrorType> = {
  not_found: 'webauthn_challenge_not_found',
  used: 'webauthn_challenge_used',
  expired: 'webauthn_challenge_expired',
};

const clientDataSchema = z.object({
  type: z.string(),
  challenge: z.string().min(1).max(500),
  origin: z.string().min(1).max(2000),
});

/** A copy on its own ArrayBuffer, the type @simplewebauthn/server asks for. */
const owned = (bytes: Uint8Array) => new Uint8Array(bytes);

/** The user handle sent to authenticators: the user id's bytes, so a passkey names its user. */
const userHandle = (userId: string) => toBase64Url(utf8(userId));

export type WebAuthnService = ReturnType<typeof webauthnService>;

export function webauthnService(k: Kernel, sessions: SessionService) {
  const hashChallenge = (challenge: string) => k.hasher.hash('nonce', `webauthn:${challenge}`);

  /** Stores a fresh challenge for a ceremony and returns it (base64url). */
  async function issueChallenge(
    appId: string,
    fields: Pick<
      WebAuthnChallengeRecord,
      'ceremony' | 'user_id' | 'rp_id' | 'user_verification' | 'authenticator_type'
    >,
  ): Promise<string> {
    const challenge = toBase64Url(k.random.bytes(32));
    const now = k.now();
    await k.storage.webauthn.deleteExpiredChallenges(appId, now - CHALLENGE_RETENTION_SECONDS);
    await k.storage.webauthn.insertChallenge({
      id: k.id('challenge'),
      app_id: appId,
      challenge_hash: hashChallenge(challenge),
      ...fields,
      expires_at: now + WEBAUTHN_TIMEOUT_MS / 1000,
      used_at: null,
      created_at: now,
    });
    return challenge;
  }

  /**
   * Reads the credential's clientDataJSON, spends the challenge it answers (once, whatever
   * follows) and checks the browser origin against the challenge's domain.
   */
  async function spendChallenge(
    appId: string,
    clientDataJSON: string,
    ceremony: WebAuthnCeremony,
  ): Promise<{ challenge: WebAuthnChallengeRecord; clientChallenge: string; origin: string }> {
    const clientData = await readClientData(clientDataJSON);
    const result = await k.storage.webauthn.consumeChallenge(
      appId,
      hashChallenge(clientData.challenge),
      ceremony,
      k.now(),
    );
    if (!result.ok) throw new LatchkeyError(challengeFailures[result.reason]);
    const app = await k.app(appId);
    // A domain removed from the App since the challenge was issued no longer signs anyone in.
    if (!isDomainAllowed(result.challenge.rp_id, app.settings.webauthn.allowed_domains))
      throw new LatchkeyError('webauthn_domain_not_allowed');
    if (!isAllowedOrigin(clientData.origin, result.challenge.rp_id))
      throw new LatchkeyError(
        'webauthn_origin_mismatch',
        `The credential was made on ${JSON.stringify(clientData.origin)}, which may not use the domain ${result.challenge.rp_id}.`,
      );
    return { challenge: result.challenge, clientChallenge: clientData.challenge, origin: clientData.origin };
  }

  async function userNames(user: UserRecord) {
    const [email] = await k.storage.emails.listByUser(user.app_id, user.id);
    const [phone] = email ? [] : await k.storage.phoneNumbers.listByUser(user.app_id, user.id);
    const name = email?.address ?? phone?.address ?? user.id;
    const fullName = [user.name?.first_name, user.name?.last_name].filter(Boolean).join(' ');
    return { name, displayName: fullName || name };
  }

  return {
    /** The user a registration request acts on; see registrant.ts for who may name whom. */
    registrantUserId: (appId: string, keyKind: ApiKeyKind, body: Registrant) =>
      registrantUserId(
        sessions,
        appId,
        keyKind,
        body,
        async () => (await k.app(appId)).settings.sessions.step_up_minutes,
      ),

    /** Creation options for the browser, and a challenge stored for `create`. */
    async beginRegistration(appId: string, input: RegistrationBeginRequest) {
      const app = await k.app(appId);
      const rpId = allowedRpId(input.domain, app.settings.webauthn.allowed_domains);
      const user = await requireUser(k.storage.users, appId, input.user_id);
      const attachment: AuthenticatorType = input.authenticator_type ?? 'platform';
      const uv = app.settings.webauthn.user_verification;
      const existing = (await k.storage.webauthn.listByUser(appId, user.id)).filter((c) => c.rp_id === rpId);
      const challenge = await issueChallenge(appId, {
        ceremony: 'registration',
        user_id: user.id,
        rp_id: rpId,
        user_verification: uv,
        authenticator_type: attachment,
      });
      const names = await userNames(user);
      const { generateRegistrationOptions } = await webauthnLibrary();
      const options = await generateRegistrationOptions({
        rpName: app.settings.webauthn.rp_name ?? app.name,
        rpID: rpId,
        userName: names.name,
        userDisplayName: names.displayName,
        userID: owned(utf8(user.id)),
        challenge: owned(fromBase64Url(challenge)),
        timeout: WEBAUTHN_TIMEOUT_MS,
        attestationType: 'none',
        excludeCredentials: existing.map((c) => ({ id: c.credential_id, transports: c.transports })),
        // Resident keys preferred: they are what lets a user sign in without naming themselves.
        authenticatorSelection: {
          authenticatorAttachment: attachment,
          userVerification: uv,
          residentKey: 'preferred',
        },
        supportedAlgorithmIDs: ALGORITHMS,
      });
      const publicKey: CreationOptions['publicKey'] = {
        challenge: options.challenge,
        rp: { name: options.rp.name, id: rpId },
        user: options.user,
        pubKeyCredParams: options.pubKeyCredParams.map((p) => ({ type: 'public-key', alg: p.alg })),
        authenticatorSelection: {
          authenticatorAttachment: attachment,
          userVerification: uv,
          residentKey: 'preferred',
          requireResidentKey: false,
        },
        timeout: WEBAUTHN_TIMEOUT_MS,
        excludeCredentials: (options.excludeCredentials ?? []).map((c) => ({
          type: 'public-key',
          id: c.id,
          ...(c.transports ? { transports: c.transports } : {}),
        })),
        attestation: 'none',
      };
      return { public_key_credential_creation_options: { publicKey }, user_id: user.id };
    },

    /** Verifies the browser's new credential against the challenge it answers, and stores it. */
    async createRegistration(appId: string, input: RegistrationCreateRequest) {
      const user = await requireUser(k.storage.users, appId, input.user_id);
      const credential = input.public_key_credential;
      const { challenge, clientChallenge, origin } = await spendChallenge(
        appId,
        credential.response.clientDataJSON,
        'registration',
      );
      if (challenge.user_id !== user.id)
        throw new LatchkeyError(
          'webauthn_challenge_not_found',
          'The credential answers a challenge issued for another user.',
        );
      const { verifyRegistrationResponse } = await webauthnLibrary();
      const verification = await libraryVerdict(() =>
        verifyRegistrationResponse({
          response: credential as unknown as RegistrationResponseJSON,
          expectedChallenge: clientChallenge,
          expectedOrigin: origin,
          expectedRPID: challenge.rp_id,
          requireUserVerification: challenge.user_verification === 'required',
          supportedAlgorithmIDs: ALGORITHMS,
        }),
      );
      if (!verification.verified) throw new LatchkeyError('webauthn_verification_failed');
      const info = verification.registrationInfo;
      const now = k.now();
      const record: WebAuthnCredentialRecord = {
        id: k.id('webauthn'),
        app_id: appId,
        user_id: user.id,
        credential_id: info.credential.id,
        public_key: toBase64Url(info.credential.publicKey),
        sign_count: info.credential.counter,
        transports: (credential.response.transports ?? []).filter((t) => KNOWN_TRANSPORTS.has(t)),
        aaguid: info.aaguid,
        rp_id: challenge.rp_id,
        authenticator_type: credential.authenticatorAttachment ?? challenge.authenticator_type,
        device_type: info.credentialDeviceType,
        backed_up: info.credentialBackedUp,
        name: input.name ?? null,
        created_at: now,
        last_used_at: null,
      };
      if (!(await k.storage.webauthn.insertCredential(record)).inserted)
        throw new LatchkeyError('duplicate_webauthn_credential');
      return { user_id: user.id, webauthn_credential_id: record.id };
    },

    /**
     * Request options for a sign-in: limited to one user's credentials on this domain when
     * `user_id` is given, else open to any discoverable credential (passkey) of the domain.
     */
    async beginAuthentication(appId: string, input: AuthenticationBeginRequest) {
      const app = await k.app(appId);
      const rpId = allowedRpId(input.domain, app.settings.webauthn.allowed_domains);
      let allowed: WebAuthnCredentialRecord[] = [];
      if (input.user_id !== undefined) {
        const user = await requireUser(k.storage.users, appId, input.user_id);
        allowed = (await k.storage.webauthn.listByUser(appId, user.id)).filter((c) => c.rp_id === rpId);
        if (allowed.length === 0)
          throw new LatchkeyError(
            'webauthn_credential_not_found',
            'The user has no WebAuthn credential for this domain.',
          );
      }
      const uv = app.settings.webauthn.user_verification;
      const challenge = await issueChallenge(appId, {
        ceremony: 'authentication',
        user_id: input.user_id ?? null,
        rp_id: rpId,
        user_verification: uv,
        authenticator_type: null,
      });
      const { generateAuthenticationOptions } = await webauthnLibrary();
      const options = await generateAuthenticationOptions({
        rpID: rpId,
        challenge: owned(fromBase64Url(challenge)),
        allowCredentials: allowed.map((c) => ({ id: c.credential_id, transports: c.transports })),
        timeout: WEBAUTHN_TIMEOUT_MS,
        userVerification: uv,
      });
      const publicKey: RequestOptions['publicKey'] = {
        challenge: options.challenge,
        rpId,
        allowCredentials: (options.allowCredentials ?? []).map((c) => ({
          type: 'public-key',
          id: c.id,
          ...(c.transports ? { transports: c.transports } : {}),
        })),
        userVerification: uv,
        timeout: WEBAUTHN_TIMEOUT_MS,
      };
      return {
        public_key_credential_request_options: { publicKey },
        ...(input.user_id === undefined ? {} : { user_id: input.user_id }),
      };
    },

    /** Verifies a signed assertion, advances the signature counter, applies the session rules. */
    async completeAuthentication(
      appId: string,
      input: AuthenticationCompleteRequest,
    ): Promise<AuthenticationCompleteResponse> {
      const assertion = input.public_key_credential;
      const { challenge, clientChallenge, origin } = await spendChallenge(
        appId,
        assertion.response.clientDataJSON,
        'authentication',
      );
      const stored = await k.storage.webauthn.findByCredentialId(appId, assertion.id);
      const handle = assertion.response.userHandle;
      if (
        !stored ||
        stored.rp_id !== challenge.rp_id ||
        (challenge.user_id !== null && stored.user_id !== challenge.user_id) ||
        // WebAuthn §7.2: a returned user handle must name the credential's owner.
        (handle && handle !== userHandle(stored.user_id))
      ) {
        throw new LatchkeyError('webauthn_credential_not_allowed');
      }
      const { verifyAuthenticationResponse } = await webauthnLibrary();
      const verification = await libraryVerdict(() =>
        verifyAuthenticationResponse({
          response: assertion as unknown as AuthenticationResponseJSON,
          expectedChallenge: clientChallenge,
          expectedOrigin: origin,
          expectedRPID: challenge.rp_id,
          // Counter 0 here: the counter rule is applied atomically by recordUse below.
          credential: {
            id: stored.credential_id,
            publicKey: owned(fromBase64Url(stored.public_key)),
            counter: 0,
          },
          requireUserVerification: challenge.user_verification === 'required',
        }),
      );
      if (!verification.verified) throw new LatchkeyError('webauthn_verification_failed');
      const now = k.now();
      const use = await k.storage.webauthn.recordUse(
        appId,
        stored.id,
        verification.authenticationInfo.newCounter,
        now,
      );
      if (use === 'counter_regression') throw new LatchkeyError('webauthn_counter_regression');
      if (use === 'not_found') throw new LatchkeyError('webauthn_credential_not_allowed');
      const factor: Factor = {
        type: 'webauthn',
        delivery_channel: 'webauthn',
        method: {
          method_id: stored.id,
          method_type: 'webauthn_credential',
          webauthn_credential_id: stored.id,
          last_verified_at: now,
        },
      };
      return {
        webauthn_credential_id: stored.id,
        ...(await completeSignIn(sessions, appId, { userId: stored.user_id, factor }, input)),
      };
    },

    async deleteCredential(appId: string, webauthnCredentialId: string) {
      const removed = await k.storage.webauthn.delete(appId, webauthnCredentialId);
      if (!removed) throw new LatchkeyError('webauthn_credential_not_found');
      return { message: 'The WebAuthn credential was deleted.', user_id: removed.user_id };
    },
  };
}

async function readClientData(clientDataJSON: string) {
  const { decodeClientDataJSON } = await webauthnLibrary();
  let decoded: unknown;
  try {
    decoded = decodeClientDataJSON(clientDataJSON);
  } catch (err) {
    decoded = err;
  }
  const parsed = clientDataSchema.safeParse(decoded);
  if (!parsed.success)
    throw new LatchkeyError(
      'invalid_webauthn_credential',
      'clientDataJSON is not a WebAuthn client data object.',
      {
        field: 'public_key_credential.response.clientDataJSON',
      },
    );
  return parsed.data;
}

/** @simplewebauthn/server refuses by throwing; its refusals become our 401s, never 500s. */
async function libraryVerdict<T>(verify: () => Promise<T>): Promise<T> {
  try {
    return await verify();
  } catch (err) {
    if (err instanceof Error && err.name === 'UnexpectedRPIDHash')
      throw new LatchkeyError('webauthn_rp_id_mismatch', undefined, { cause: err });
    const reason = err instanceof Error ? err.message : String(err);
    throw new LatchkeyError('webauthn_verification_failed', `The credential did not verify: ${reason}`, {
      cause: err,
    });
  }
}
