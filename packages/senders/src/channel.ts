import { LatchkeyError, type OutboundMessage } from '@latchkey/core';

/**
 * Refuses a message on a channel the sender cannot carry. A configuration mistake, not an
 * outage, so it is an internal error rather than `sender_unavailable` (retrying will not help).
 */
export function requireChannel(
  sender: string,
  channel: OutboundMessage['channel'],
  message: OutboundMessage,
) {
  if (message.channel !== channel) {
    throw new LatchkeyError(
      'internal_error',
      `${sender} delivers ${channel} only; give ${message.channel} messages their own sender (see routingSender).`,
    );
  }
}

/** A misconfigured sender fails when it is built, not on the first message. */
export function invalidOption(sender: string, problem: string): never {
  throw new LatchkeyError('internal_error', `${sender}: ${problem}`);
}
