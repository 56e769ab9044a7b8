import { openTabChannel } from './cross-tab.js';
import { LatchkeyClientError } from './errors.js';
import type { PublicRoute } from './generated/openapi.js';
import {
  createSessionStore,
  jwtExpiry,
  type SessionChange,
  type SessionPersistence,
  type SessionState,
} from './session-store.js';
import { type Call, createTransport, type Route, send } from './transport.js';

/** The routes the browser entry may call: those the server documents as taking the public token. */
export type BrowserRoute = Extract<Route, PublicRoute>;

export interface LatchkeyClientOptions {
  /** The App's public token, `pk_…`. Never the secret key: that stays on servers. */
  publicToken: string;
  /** Where Latchkey is mounted; the page's own origin when absent. */
  baseUrl?: string;
  /** Where the session is kept (default `memory`); `none` for the host's cookie mode. */
  session?: SessionPersistence;
  /** The `localStorage` key when `session` is `localStorage`. */
  storageKey?: string;
  /** Minutes a new session lasts (default 60): a sign-in without it creates no session. */
  sessionExpiresIn?: number;
  /**
   * Tells this origin's other tabs of each sign-in, refresh and sign-out, and follows theirs, over
   * a BroadcastChannel named for `storageKey`. On by default for `localStorage` and `none` where
   * there is a `document` (a browser tab); a `memory` session belongs to its tab alone.
   */
  crossTab?: boolean;
  /** Seconds before the JWT expires at which it is refreshed (default 60). */
  refreshBeforeSeconds?: number;
  fetch?: typeof fetch;
}

/** What the sign-in helpers share: the typed call, the session and the options. */
export interface ClientCore {
  call: Call<BrowserRoute>;
  options: LatchkeyClientOptions;
  session: {
    get(): SessionState | null;
    /** `{ session_token }` or `{ session_jwt }` of the current session, or nothing. */
    credential(): { session_token: string } | { session_jwt: string } | Record<string, never>;
    /** Takes a sign-in answer: holds its session and tells the listeners. */
    accept<T extends Partial<SessionState> & { user_id: string }>(answer: T): T;
  };
  /** A POST to one of the host's own routes, carrying the current session as the bearer. */
  hostPost(path: string, body: unknown): Promise<unknown>;
}

/** The client core and its session lifecycle: state, refresh before expiry and sign-out. */
export function createClientCore(options: LatchkeyClientOptions) {
  const persistence = options.session ?? 'memory';
  const transportOptions = {
    key: options.publicToken,
    ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(persistence === 'none' ? { credentials: 'include' as const } : {}),
  };
  const call: Call<BrowserRoute> = createTransport(transportOptions);
  const storageKey = options.storageKey ?? 'latchkey.session';
  const store = createSessionStore(persistence, storageKey);
  let timer: ReturnType<typeof setTimeout> | undefined;

  const credential = (): ReturnType<ClientCore['session']['credential']> => {
    const s = store.get();
    if (s?.session_token) return { session_token: s.session_token };
    if (s?.session_jwt) return { session_jwt: s.session_jwt };
    return {};
  };

  const schedule = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    const jwt = store.get()?.session_jwt;
    const exp = jwt ? jwtExpiry(jwt) : undefined;
    if (exp === undefined) return;
    const before = options.refreshBeforeSeconds ?? 60;
    const delay = Math.max(1000, (exp - before) * 1000 - Date.now());
    timer = setTimeout(() => {
      refresh().catch(() => {
        // A refused refresh has already signed out (below); a network failure retries next time.
      });
    }, delay);
    // Never keeps a Node, Bun or Deno process alive by itself.
    (timer as { unref?: () => void }).unref?.();
  };

  const crossTab = options.crossTab ?? (persistence !== 'memory' && typeof globalThis.document === 'object');
  // Another tab's change is taken as it is (no refresh of our own, no echo back).
  const tabs = crossTab
    ? openTabChannel(`latchkey:${storageKey}`, (event) => {
        store.set({ ...event, fromOtherTab: true });
        schedule();
      })
    : undefined;

  const change = (event: SessionChange) => {
    store.set(event);
    schedule();
    // What this tab keeps, not the answer: in `none` mode that is the user id alone, no token.
    tabs?.post({ type: event.type, session: store.get() } as SessionChange);
  };

  const accept = <T extends Partial<SessionState> & { user_id: string }>(answer: T): T => {
    if (answer.session_jwt || answer.session_token || persistence === 'none') {
      change({
        type: 'signed-in',
        session: {
          user_id: answer.user_id,
          ...(answer.session_token ? { session_token: answer.session_token } : {}),
          ...(answer.session_jwt ? { session_jwt: answer.session_jwt } : {}),
          ...(answer.session ? { session: answer.session } : {}),
        },
      });
    }
    return answer;
  };

  /** A fresh JWT for the current session; signs out when the server no longer knows it. */
  async function refresh(): Promise<SessionState | null> {
    const held = store.get();
    if (!held && persistence !== 'none') return null;
    try {
      const answer = await call('post /v1/auth/sessions/authenticate', { body: credential() });
      const session: SessionState = {
        user_id: answer.user_id,
        ...(held?.session_token ? { session_token: held.session_token } : {}),
        session_jwt: answer.session_jwt,
        session: answer.session,
      };
      change({ type: 'refreshed', session });
      return store.get();
    } catch (err) {
      if ((err as { status?: number }).status === 401 || (err as { status?: number }).status === 404)
        change({ type: 'signed-out', session: null });
      throw err;
    }
  }

  /** Revokes the session on the server, then forgets it here. */
  async function signOut(): Promise<void> {
    const body = credential();
    try {
      if (Object.keys(body).length > 0 || persistence === 'none')
        await call('post /v1/auth/sessions/revoke', { body });
    } finally {
      change({ type: 'signed-out', session: null });
    }
  }

  /** The current session's credential, or a clear error where the client holds none (cookie mode). */
  const held = () => {
    const body = credential();
    if (Object.keys(body).length === 0)
      throw new LatchkeyClientError({
        status: 0,
        error_type: 'session_required',
        message:
          "Sign in first: the client holds no session to send (in cookie mode, use the host's own routes).",
      });
    return body as { session_token: string } | { session_jwt: string };
  };

  /** The signed-in user's live sessions (devices), the current one marked `current`. */
  async function list() {
    return (await call('get /v1/auth/sessions', { query: held() })).sessions;
  }

  /** Ends one of the user's sessions by id ("sign out that device"); the current one signs out here too. */
  async function revoke(sessionId: string) {
    const answer = await call('post /v1/auth/sessions/revoke', {
      body: { session_id: sessionId, ...held() },
    });
    if (answer.current) change({ type: 'signed-out', session: null });
    return answer;
  }

  /** Ends every other session of the user, keeping this one ("sign out my other devices"). */
  async function revokeOthers() {
    return call('post /v1/auth/sessions/revoke_all', { body: { ...held(), except_current: true } });
  }

  /**
   * Exchanges the current session for one scoped to an organization the user is a member of
   * (its id, roles and permissions in the JWT): held here in place of the current one, which the
   * server revokes. Switching organizations is another call.
   */
  async function switchOrganization(organizationId: string) {
    const answer = await call('post /v1/organizations/{organization_id}/sessions/exchange', {
      params: { organization_id: organizationId },
      body: held(),
    });
    return accept(answer);
  }

  const core: ClientCore = {
    call,
    options,
    session: { get: store.get, credential, accept },
    hostPost: (path, body) => {
      const held = store.get();
      const bearer = held?.session_token ?? held?.session_jwt;
      return send(transportOptions, `${transportOptions.baseUrl?.replace(/\/+$/, '') ?? ''}${path}`, {
        method: 'POST',
        headers: {
          accept: 'application/json',
          'content-type': 'application/json',
          ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
        },
        body: JSON.stringify(body ?? {}),
        ...(transportOptions.credentials ? { credentials: transportOptions.credentials } : {}),
      });
    },
  };
  // A session kept in localStorage from an earlier visit is refreshed on the same schedule.
  schedule();

  return {
    core,
    session: {
      /** The signed-in user's session as held here, or null. */
      get: store.get,
      /** Asks the server whether the session is live and takes a fresh JWT. */
      refresh,
      signOut,
      list,
      revoke,
      revokeOthers,
      switchOrganization,
      /** Called on sign-in, refresh and sign-out; returns the unsubscribe function. */
      onChange: store.subscribe,
    },
    /** Stops the refresh timer and leaves the cross-tab channel (tests, server-side rendering). */
    close: () => {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      tabs?.close();
    },
  };
}

/** Sign-in options every method shares: minutes the session lasts. */
export const sessionFields = (core: ClientCore) => ({
  ...core.session.credential(),
  session_expires_in: core.options.sessionExpiresIn ?? 60,
});
