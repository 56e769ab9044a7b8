import { LatchkeyError, type Sender } from '@latchkey/core';

/** One sender per channel, e.g. `{ email: smtpSender(…), sms: httpSmsSender(…) }`. */
export interface RoutingSenderOptions {
  sms?: Sender;
  email?: Sender;
}

/** Hands each message to the sender for its channel. */
export function routingSender(senders: RoutingSenderOptions): Sender {
  return {
    send(message) {
      const sender = senders[message.channel];
      if (!sender) {
        return Promise.reject(
          new LatchkeyError('internal_error', `No sender is configured for ${message.channel} messages.`),
        );
      }
      return sender.send(message);
    },
  };
}
