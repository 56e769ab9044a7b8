import { isLatchkeyError, LatchkeyError } from '../errors.js';
import type { Latchkey } from '../latchkey.js';
import { jwtAudience, type SessionCredential } from './credentials.js';

type Sessions = Pick<Latchkey, 'sessions' | 'apps'>;

const MAX_KNOWN_APPS = 10_000;

/**
 * The App whose session a credential is: `appId` when the host names one (a session of another
 * App then fails its check with the documented 401), else the one the credential names. A JWT
 * names its App in `aud` (read unverified here; the App's keys then verify it, audience
 * included), once its App is known to exist, so a made-up `aud` loads no keys; a session
 * token is looked up across Apps once (`sessions.appIdOfToken`). Throws the 401s `check` would.
 */
export function credentialApp(latchkey: Sessions, appId: string | undefined) {
  if (appId !== undefined) return async (_credential: SessionCredential): Promise<string> => appId;
  const apps = appIds(latchkey);
  return async (credential: SessionCredential): Promise<string> => {
    if ('session_jwt' in credential) {
      const audience = jwtAudience(credential.session_jwt);
      if (audience !== undefined && (await apps.has(audience))) return audience;
      throw new LatchkeyError('invalid_session_jwt');
    }
    const found = await latchkey.sessions.appIdOfToken(credential.session_token);
    if (found === null) throw new LatchkeyError('session_not_found');
    return found;
  };
}

/**
 * Whether an App exists, remembered once it does: a JWT of a known App costs no storage read,
 * a made-up `aud` one primary-key read (as a made-up session token does) and no key loading.
 */
function appIds(latchkey: Sessions) {
  const known = new Set<string>();
  return {
    async has(id: string): Promise<boolean> {
      if (known.has(id)) return true;
      try {
        await latchkey.apps.get(id);
      } catch (err) {
        if (isLatchkeyError(err) && err.errorType === 'app_not_found') return false;
        throw err;
      }
      if (known.size >= MAX_KNOWN_APPS) known.clear();
      known.add(id);
      return true;
    },
  };
}
