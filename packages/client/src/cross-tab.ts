import type { SessionChange } from './session-store.js';

/** This origin's other tabs, told of each session change and heard from in turn. */
export interface TabChannel {
  post(change: SessionChange): void;
  close(): void;
}

const isChange = (data: unknown): data is SessionChange => {
  if (typeof data !== 'object' || data === null) return false;
  const { type, session } = data as { type?: unknown; session?: unknown };
  if (type === 'signed-out') return session === null;
  return (
    (type === 'signed-in' || type === 'refreshed') &&
    typeof session === 'object' &&
    session !== null &&
    typeof (session as { user_id?: unknown }).user_id === 'string'
  );
};

/**
 * A BroadcastChannel named for the session's storage key, or nothing where the runtime has none.
 * A message that is not a session change (another script's, on the same name) is ignored.
 */
export function openTabChannel(name: string, hear: (change: SessionChange) => void): TabChannel | undefined {
  const Channel = globalThis.BroadcastChannel;
  if (typeof Channel !== 'function') return undefined;
  const channel = new Channel(name);
  // Node, Bun and Deno: an open channel never keeps the process alive by itself.
  (channel as { unref?: () => void }).unref?.();
  channel.onmessage = (event: MessageEvent) => {
    if (isChange(event.data)) hear(event.data);
  };
  return {
    post: (change) => channel.postMessage(change),
    close: () => channel.close(),
  };
}
