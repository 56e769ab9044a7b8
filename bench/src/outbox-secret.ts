import type { OutboxEntry } from '@latchkey/senders';

/**
 * What an outbox message gives its address to sign in with: the code it carries, else the token
 * of its link (null for a link without one).
 */
export const outboxSecret = (message: Pick<OutboxEntry, 'code' | 'url'>): string | null =>
  message.code ?? (message.url ? new URL(message.url).searchParams.get('token') : null);
