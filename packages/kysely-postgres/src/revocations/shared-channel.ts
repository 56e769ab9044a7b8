import type { RevocationChannel, RevocationListener, SessionRevocation } from '@latchkey/core';
import { parseRevocation } from './payload.js';

export interface ListenHandlers {
  message(payload: string): void;
  /** The connection broke: notifications from now until `restored` may be missed. */
  lost(error: unknown): void;
  /** Listening again after a `lost`. */
  restored(): void;
}

export interface Listening {
  close(): Promise<void>;
}

/**
 * LISTENs on `channel` until closed: resolves once listening, rejects when the first attempt fails;
 * after that it keeps itself listening, telling `lost` and `restored`.
 */
export type Listen = (channel: string, handlers: ListenHandlers) => Promise<Listening>;

/**
 * The storage's RevocationChannel: every subscriber shares one LISTEN, opened when the first
 * subscribes and closed when the last leaves (or `close()`). A subscriber that arrives while the
 * shared connection is down is refused, so it never takes a broken channel for a live one: the
 * caller retries.
 */
export function sharedRevocationChannel(listen: Listen, channelName: () => Promise<string>) {
  const listeners = new Set<RevocationListener>();
  let shared: Promise<Listening> | undefined;
  let live = false;
  let lostWith: unknown;
  // Subscribers waiting or subscribed: the LISTEN ends when none are left.
  let holders = 0;
  let closed = false;
  // Asked once: the schema's oid does not change while the storage is open.
  let named: Promise<string> | undefined;
  const nameOnce = () => {
    if (named) return named;
    const asked = channelName();
    named = asked;
    // A failure (tables not migrated yet) is asked again next time.
    asked.catch(() => {
      if (named === asked) named = undefined;
    });
    return asked;
  };

  // A subscriber's error must not reach the driver's socket handler, nor keep the others from hearing.
  const each = (call: (listener: RevocationListener) => void) => {
    for (const listener of [...listeners]) {
      try {
        call(listener);
      } catch {}
    }
  };

  const start = async (): Promise<Listening> => {
    const listening = await listen(await nameOnce(), {
      message(payload) {
        const revocation = parseRevocation(payload);
        if (!revocation) return;
        const batch: SessionRevocation[] = [revocation];
        each((l) => l.revoked(batch));
      },
      lost(error) {
        live = false;
        lostWith = error;
        each((l) => l.lost(error));
      },
      restored() {
        live = true;
        each((l) => l.restored());
      },
    });
    live = true;
    return listening;
  };

  const release = async (from: Promise<Listening>) => {
    holders -= 1;
    if (holders > 0) return;
    shared = undefined;
    live = false;
    await (await from.catch(() => undefined))?.close();
  };

  const channel: RevocationChannel = {
    async subscribe(listener) {
      if (closed) throw new Error('Latchkey: the storage is closed.');
      holders += 1;
      if (!shared) {
        shared = start();
        // A failed start is forgotten, so the next subscribe tries again.
        const failed = shared;
        failed.catch(() => {
          if (shared === failed) shared = undefined;
        });
      }
      const from = shared;
      try {
        await from;
        if (closed) throw new Error('Latchkey: the storage is closed.');
        if (!live) throw lostWith ?? new Error('Latchkey: the revocation channel is down.');
      } catch (err) {
        await release(from);
        throw err;
      }
      listeners.add(listener);
      let open = true;
      return {
        async close() {
          if (!open) return;
          open = false;
          listeners.delete(listener);
          await release(from);
        },
      };
    },
  };

  return {
    channel,
    /** Ends the LISTEN for good (the storage's `close()`). */
    async close() {
      closed = true;
      listeners.clear();
      const last = shared;
      shared = undefined;
      live = false;
      await (await last?.catch(() => undefined))?.close();
    },
  };
}
