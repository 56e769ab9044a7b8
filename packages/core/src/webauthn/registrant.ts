import type { ApiKeyKind } from '../apps/repo.js';
import { LatchkeyError } from '../errors.js';
import type { SessionService } from '../sessions/service.js';
import type { Registrant } from './schema.js';

/**
 * Whose account a passkey is added to. The App's backend (secret key) names the user; a browser
 * (public token) proves it is the user with a live session and may name no one, so nobody can
 * plant a credential on an account they are not signed in to; and that session must have proven a
 * factor within the App's `sessions.step_up_minutes`, so a stolen, long-lived session cannot add a
 * passkey of its own to the account (step-up).
 */
export async function registrantUserId(
  sessions: Pick<SessionService, 'liveUserId'>,
  appId: string,
  keyKind: ApiKeyKind,
  body: Registrant,
  stepUpMinutes: () => Promise<number>,
): Promise<string> {
  const sessionField = body.session_token !== undefined ? 'session_token' : 'session_jwt';
  if (keyKind === 'secret') {
    if (body.session_token !== undefined || body.session_jwt !== undefined)
      throw new LatchkeyError(
        'invalid_field',
        'With the secret key, name the user with user_id; a session is what the public token sends.',
        { field: sessionField },
      );
    if (body.user_id === undefined)
      throw new LatchkeyError('missing_field', 'user_id is required with the secret key.', {
        field: 'user_id',
      });
    return body.user_id;
  }
  if (body.user_id !== undefined)
    throw new LatchkeyError(
      'secret_key_required',
      "Naming a user needs the secret key; with the public token, send the user's session_token or session_jwt.",
      { field: 'user_id' },
    );
  return sessions.liveUserId(
    appId,
    { session_token: body.session_token, session_jwt: body.session_jwt },
    { freshWithin: (await stepUpMinutes()) * 60 },
  );
}
