import type { components } from './generated/openapi.js';

/** What the client holds for the signed-in user. */
export interface SessionState {
  user_id: string;
  session_token?: string;
  session_jwt?: string;
  session?: components['schemas']['Session'];
}

/** What changed; `fromOtherTab` when another tab of this origin made the change (cross-tab). */
export type SessionChange = (
  | { type: 'signed-in'; session: SessionState }
  | { type: 'refreshed'; session: SessionState }
  | { type: 'signed-out'; session: null }
) & { fromOtherTab?: boolean };

/**
 * `memory` (default): gone on reload. `localStorage`: kept across reloads on this origin (readable
 * by any script on it). `none`: the host's cookie mode, where the browser's cookies carry the
 * session and the client keeps no token at all.
 */
export type SessionPersistence = 'memory' | 'localStorage' | 'none';

export interface SessionStore {
  get(): SessionState | null;
  set(change: SessionChange): void;
  subscribe(listener: (change: SessionChange) => void): () => void;
}

/** Where the session lives, and who hears when it changes. */
export function createSessionStore(persistence: SessionPersistence, storageKey: string): SessionStore {
  const listeners = new Set<(change: SessionChange) => void>();
  let current: SessionState | null = persistence === 'localStorage' ? load(storageKey) : null;
  return {
    get: () => current,
    set(change) {
      current =
        persistence === 'none' && change.session ? { user_id: change.session.user_id } : change.session;
      if (persistence === 'localStorage') save(storageKey, current);
      for (const listener of listeners) listener(change);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

function load(key: string): SessionState | null {
  try {
    const parsed = JSON.parse(globalThis.localStorage?.getItem(key) ?? 'null') as SessionState | null;
    return parsed && typeof parsed.user_id === 'string' ? parsed : null;
  } catch {
    return null;
  }
}

function save(key: string, state: SessionState | null): void {
  if (state) globalThis.localStorage?.setItem(key, JSON.stringify(state));
  else globalThis.localStorage?.removeItem(key);
}

/** The `exp` of a JWT, in Unix seconds; the client only schedules by it, the server checks it. */
export function jwtExpiry(jwt: string): number | undefined {
  const payload = jwt.split('.')[1];
  if (!payload) return undefined;
  try {
    const json = atob(
      payload
        .replace(/-/g, '+')
        .replace(/_/g, '/')
        .padEnd(Math.ceil(payload.length / 4) * 4, '='),
    );
    const exp = (JSON.parse(json) as { exp?: unknown }).exp;
    return typeof exp === 'number' ? exp : undefined;
  } catch {
    return undefined;
  }
}
