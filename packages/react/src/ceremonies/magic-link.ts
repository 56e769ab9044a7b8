import type { BodyOf } from '@latchkey/client';
import { useCallback, useEffect, useMemo } from 'react';
import { useStepClient } from '../context.js';
import { useCeremony } from '../use-ceremony.js';

type SendBody = BodyOf<'post /v1/auth/magic_links/email/login_or_create'>;

export type MagicLinkStep = 'sending' | 'sent' | 'authenticating' | 'signed-in';

/**
 * Email magic links: `send(email)` on the sign-in page; on the page the link opens,
 * `authenticateFromUrl()` (or `fromUrl: true`, which does it on mount) signs in and takes the
 * token out of the address bar. `status` stays `idle` when the URL holds no token.
 */
export function useMagicLink(options: { fromUrl?: boolean } = {}) {
  const client = useStepClient('useMagicLink');
  const { state, run, reset } = useCeremony<MagicLinkStep>();

  const send = useCallback(
    (to: string | SendBody) =>
      run('sending', 'sent', () =>
        client().magicLinks.email.loginOrCreate(typeof to === 'string' ? { email: to } : to),
      ),
    [client, run],
  );
  const authenticate = useCallback(
    (token: string) => run('authenticating', 'signed-in', () => client().magicLinks.authenticate(token)),
    [client, run],
  );
  const authenticateFromUrl = useCallback(
    async (url?: string) => {
      const href = url ?? globalThis.location?.href ?? '';
      if (!new URL(href, 'http://localhost').searchParams.get('token')) return null;
      return run('authenticating', 'signed-in', () => client().magicLinks.authenticateFromUrl(href));
    },
    [client, run],
  );

  const fromUrl = options.fromUrl ?? false;
  useEffect(() => {
    // Spent once even when StrictMode runs this twice: the client takes the token out of the
    // address bar before its first await, so the second run finds none.
    if (fromUrl) void authenticateFromUrl();
  }, [fromUrl, authenticateFromUrl]);

  return useMemo(
    () => ({ ...state, send, authenticate, authenticateFromUrl, reset }),
    [state, send, authenticate, authenticateFromUrl, reset],
  );
}
