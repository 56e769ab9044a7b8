import type { components, SessionState } from '@latchkey/client';
import { useCallback, useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import { useOptionalClient, useSessionSource } from './context.js';
import type { SessionSnapshot, SessionStatus } from './session-source.js';

export interface UseSession extends SessionSnapshot {
  /** Asks the server for a fresh JWT; a session it no longer knows turns `signed-out`. */
  refresh(): Promise<SessionState | null>;
  /** Revokes the session on the server and forgets it here (and in the other tabs). */
  signOut(): Promise<void>;
}

const notInTheBrowser = () =>
  Promise.reject(new Error('The Latchkey session changes in the browser only.')) as Promise<never>;

/**
 * The session: `loading`, `signed-in` or `signed-out`, re-rendering on each sign-in, refresh and
 * sign-out, this tab's or another's.
 */
export function useSession(): UseSession {
  const source = useSessionSource('useSession');
  const client = useOptionalClient('useSession');
  const snapshot = useSyncExternalStore(source.subscribe, source.getSnapshot, source.getServerSnapshot);
  return useMemo(
    () => ({
      ...snapshot,
      refresh: client ? client.session.refresh : notInTheBrowser,
      signOut: client ? client.session.signOut : notInTheBrowser,
    }),
    [snapshot, client],
  );
}

/** What the session tells of its user: the id and the factors that signed the session in. */
export interface SessionUser {
  user_id: string;
  /** The server's session id, once the client holds the session record. */
  session_id: string | undefined;
  /** How this session was signed in (email code, passkey, wallet, …), oldest first. */
  factors: components['schemas']['Factor'][];
  /** Unix seconds. */
  expires_at: number | undefined;
}

export interface UseUser<U> {
  status: SessionStatus;
  /** The session's user, or what `load` made of it; null while loading and when signed out. */
  user: U | null;
  /** Why `load` failed; the status stays `signed-in`. */
  error: Error | null;
}

/**
 * The signed-in user. Without `load`: what the session carries (`SessionUser`). With `load`: its
 * answer for the session, asked again when the user changes (a host route with more, e.g.
 * `fetch('/api/me')`); `loading` until it answers.
 */
export function useUser(): UseUser<SessionUser>;
export function useUser<U>(load: (session: SessionState) => Promise<U>): UseUser<U>;
export function useUser<U>(load?: (session: SessionState) => Promise<U>): UseUser<U | SessionUser> {
  const { status, session } = useSession();
  const fromSession = useMemo<SessionUser | null>(
    () =>
      session
        ? {
            user_id: session.user_id,
            session_id: session.session?.id,
            factors: session.session?.factors ?? [],
            expires_at: session.session?.expires_at,
          }
        : null,
    [session],
  );
  const [loaded, setLoaded] = useState<{ user_id: string; user: U | null; error: Error | null } | null>(null);
  const userId = session?.user_id;
  const loader = useLatest(load);
  const held = useLatest(session);
  // Asked again for another user only: a refresh (a new JWT) is the same user. `loader` and
  // `held` are stable, always reading the latest render's values.
  useEffect(() => {
    const load = loader();
    const session = held();
    if (!userId || !load || !session) return;
    let current = true;
    load(session).then(
      (user) => current && setLoaded({ user_id: userId, user, error: null }),
      (error: unknown) =>
        current &&
        setLoaded({
          user_id: userId,
          user: null,
          error: error instanceof Error ? error : new Error(String(error)),
        }),
    );
    return () => {
      current = false;
    };
  }, [userId, loader, held]);

  if (!load) return { status, user: fromSession, error: null };
  if (status !== 'signed-in') return { status, user: null, error: null };
  if (!loaded || loaded.user_id !== userId) return { status: 'loading', user: null, error: null };
  return { status, user: loaded.user, error: loaded.error };
}

/** A function that always calls the latest `value`, for effects that must not re-run on its identity. */
function useLatest<T>(value: T): () => T {
  const [box] = useState(() => ({ value }));
  box.value = value;
  return useCallback(() => box.value, [box]);
}
