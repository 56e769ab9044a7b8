import { type ClientCore, sessionFields } from './client.js';
import type { components } from './generated/openapi.js';

type CreatedTotp = components['schemas']['CreateTotpResponse'];
type TotpSession = components['schemas']['TotpSessionResponse'];

/** What an enrolment screen shows: the QR code to scan, the secret to type, the recovery codes. */
export interface TotpEnrolment {
  totp_id: string;
  user_id: string;
  /** A PNG `data:` URL: put it in an `<img src>`. */
  qrDataUrl: string;
  secret: string;
  /** The secret in groups of four, easier to type by hand. */
  secretGrouped: string;
  recoveryCodes: string[];
}

/** Shapes the answer of `totps/create` (made by the host with its secret key) for display. */
export const totpEnrolment = (created: CreatedTotp): TotpEnrolment => ({
  totp_id: created.totp_id,
  user_id: created.user_id,
  qrDataUrl: created.qr_base64,
  secret: created.secret,
  secretGrouped: created.secret.replace(/(.{4})(?=.)/g, '$1 '),
  recoveryCodes: created.recovery_codes,
});

/**
 * TOTP through the host: Latchkey's TOTP routes take the secret key (a code names a user, and
 * the public token proves no user), so the host offers them behind its session check, under
 * `basePath`: `POST {basePath}` enrols, `/verify` activates, `/authenticate` and `/recover` add
 * the factor to the signed-in session. The example server's `/account/totp` routes are a model.
 */
export const totp = (core: ClientCore, basePath = '/account/totp') => ({
  enrolment: totpEnrolment,
  /** Asks the host to create a pending TOTP for the signed-in user; the result is ready to show. */
  enrol: async () => totpEnrolment((await core.hostPost(basePath, {})) as CreatedTotp),
  /** Activates the pending TOTP with the first code the app shows. */
  verify: (totp_code: string) =>
    core.hostPost(`${basePath}/verify`, { totp_code }) as Promise<
      components['schemas']['VerifyTotpResponse']
    >,
  authenticate: async (totp_code: string) =>
    core.session.accept(
      (await core.hostPost(`${basePath}/authenticate`, {
        totp_code,
        session_expires_in: sessionFields(core).session_expires_in,
      })) as TotpSession,
    ),
  recover: async (recovery_code: string) =>
    core.session.accept(
      (await core.hostPost(`${basePath}/recover`, {
        recovery_code,
        session_expires_in: sessionFields(core).session_expires_in,
      })) as TotpSession,
    ),
});
