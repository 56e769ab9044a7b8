import type { LatchkeyClient, SessionState } from '@latchkey/client';

export type SessionStatus = 'loading' | 'signed-in' | 'signed-out';

/** What `useSession` reads: one object per change, the same object until the next. */
export interface SessionSnapshot {
  status: SessionStatus;
  /** The session as the client holds it (user id, token and JWT, the server's session record). */
  session: SessionState | null;
  user_id: string | null;
}

const LOADING: SessionSnapshot = Object.freeze({ status: 'loading', session: null, user_id: null });
const SIGNED_OUT: SessionSnapshot = Object.freeze({ status: 'signed-out', session: null, user_id: null });
const signedIn = (session: SessionState): SessionSnapshot =>
  Object.freeze({ status: 'signed-in', session, user_id: session.user_id });

/** A store in the shape `useSyncExternalStore` takes. */
export interface SessionSource {
  subscribe(listener: () => void): () => void;
  getSnapshot(): SessionSnapshot;
  getServerSnapshot(): SessionSnapshot;
}

/** Server rendering (and hydration) shows `loading`: the server cannot know the browser's session. */
export const serverSessionSource: SessionSource = {
  subscribe: () => () => {},
  getSnapshot: () => LOADING,
  getServerSnapshot: () => LOADING,
};

/**
 * The client's session as a store React reads. A session the client already holds (localStorage)
 * is `signed-in` at once; otherwise `loading` until the first check answers. That check, on the
 * first subscription, is `session.refresh()`: it confirms a held session with the server (a
 * revoked one turns `signed-out`) and, in cookie mode, asks whether the cookies carry one. From then
 * on every change event of the client, this tab's or another tab's, makes a new snapshot.
 */
export function sessionSource(client: Pick<LatchkeyClient, 'session'>, options: { check?: boolean } = {}) {
  const fromClient = () => {
    const held = client.session.get();
    return held ? signedIn(held) : undefined;
  };
  let snapshot = fromClient() ?? LOADING;
  let checked = options.check === false;
  if (checked && snapshot === LOADING) snapshot = SIGNED_OUT;
  const listeners = new Set<() => void>();
  let stop: (() => void) | undefined;

  const set = (next: SessionSnapshot) => {
    if (next === snapshot) return;
    snapshot = next;
    for (const listener of listeners) listener();
  };

  const check = () => {
    checked = true;
    client.session.refresh().then(
      (held) => {
        if (!held && snapshot.status === 'loading') set(SIGNED_OUT);
      },
      () => {
        // A refused session was already signed out by the client (its change event); no answer
        // at all leaves a held session as it is, and nothing held as signed out.
        if (snapshot.status === 'loading') set(SIGNED_OUT);
      },
    );
  };

  const source: SessionSource = {
    subscribe(listener) {
      listeners.add(listener);
      if (!stop) {
        // Changes made while nobody listened (StrictMode's unmount and remount) are caught up on.
        if (checked) set(fromClient() ?? SIGNED_OUT);
        stop = client.session.onChange((change) =>
          set(change.session ? signedIn(change.session) : SIGNED_OUT),
        );
        if (!checked) check();
      }
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) {
          stop?.();
          stop = undefined;
        }
      };
    },
    getSnapshot: () => snapshot,
    getServerSnapshot: () => LOADING,
  };
  return source;
}
