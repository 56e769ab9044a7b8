import { type ErrorType, LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import type { IssuedSession, SessionFields, SessionService } from '../sessions/service.js';
import type { DeviceFingerprint } from '../shared/device-fingerprint.js';
import type { Factor } from '../shared/factor.js';
import type { UserRecord } from '../users/repo.js';

/** What every sign-in request carries besides its proof: the session fields and the device. */
export interface SignInRequest extends SessionFields {
  device_fingerprint?: DeviceFingerprint | undefined;
}

/** A proof of identity that has been checked: whose it is, and how it was made. */
export interface VerifiedProof {
  userId: string;
  factor: Factor;
}

/** What every sign-in response holds: the user, and the session when one was created or extended. */
export type SignedIn = { user_id: string } & IssuedSession;

/**
 * The one step every sign-in method ends with, once its proof holds: the spec's session rules
 * (extend the live session sent when it is the same user's, else create one when
 * `session_expires_in` is set, else none), the device fingerprint of the request recorded on a
 * session it creates (an extended session keeps the one it was created with), and the shared
 * part of the response.
 */
export async function completeSignIn(
  sessions: SessionService,
  appId: string,
  proof: VerifiedProof,
  request: SignInRequest,
): Promise<SignedIn> {
  const issued = await sessions.issue(appId, proof.userId, proof.factor, request, request.device_fingerprint);
  return { user_id: proof.userId, ...issued };
}

/**
 * The user a code or link sent to one of their addresses names. Proving the address completes a
 * sign-up left pending, so a pending user becomes active. `missing`: the error a vanished user
 * gets, the flow's own "not found".
 */
export async function contactOwner(
  k: Kernel,
  appId: string,
  userId: string,
  now: number,
  missing: ErrorType,
): Promise<UserRecord> {
  const user = await k.storage.users.get(appId, userId);
  if (!user) throw new LatchkeyError(missing);
  if (user.status !== 'pending') return user;
  const active = await k.storage.users.update(appId, user.id, { status: 'active', updated_at: now });
  if (!active) throw new LatchkeyError(missing);
  return active;
}
