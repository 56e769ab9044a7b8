import type { SessionRevocation } from '@latchkey/core';

/**
 * Redis takes far larger messages; a bound keeps a sign-out of thousands of sessions from
 * holding every subscriber's connection on one long read.
 */
export const MAX_MESSAGE_BYTES = 64 * 1024;

const HEAD = '{"v":1,"r":[';
const TAIL = ']}';

/**
 * Revocations as messages of at most MAX_MESSAGE_BYTES (an entry longer than that goes alone):
 * `{"v":1,"r":[[app_id, session_id, revoked_at], ...]}`. Tuples, not objects: the keys would be
 * most of each message.
 */
export function encodeRevocations(revocations: readonly SessionRevocation[]): string[] {
  const messages: string[] = [];
  let entries: string[] = [];
  let bytes = HEAD.length + TAIL.length;
  for (const r of revocations) {
    const entry = JSON.stringify([r.app_id, r.session_id, r.revoked_at]);
    // The entry and the comma before it.
    const size = Buffer.byteLength(entry) + 1;
    if (entries.length > 0 && bytes + size > MAX_MESSAGE_BYTES) {
      messages.push(HEAD + entries.join(',') + TAIL);
      entries = [];
      bytes = HEAD.length + TAIL.length;
    }
    entries.push(entry);
    bytes += size;
  }
  if (entries.length > 0) messages.push(HEAD + entries.join(',') + TAIL);
  return messages;
}

/**
 * The revocations of one message, or none when it is not one of ours: anyone who can publish on
 * the channel may send anything, and a subscriber must not throw over it. A message is taken
 * whole or not at all.
 */
export function decodeRevocations(text: string): SessionRevocation[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return [];
  }
  if (typeof body !== 'object' || body === null || !('v' in body) || body.v !== 1) return [];
  if (!('r' in body) || !Array.isArray(body.r)) return [];
  const revocations: SessionRevocation[] = [];
  for (const entry of body.r as unknown[]) {
    if (!Array.isArray(entry) || entry.length !== 3) return [];
    const [app_id, session_id, revoked_at] = entry as unknown[];
    if (typeof app_id !== 'string' || app_id === '') return [];
    if (typeof session_id !== 'string' || session_id === '') return [];
    // JSON.parse reads 1e999 as Infinity.
    if (typeof revoked_at !== 'number' || !Number.isFinite(revoked_at)) return [];
    revocations.push({ app_id, session_id, revoked_at });
  }
  return revocations;
}
