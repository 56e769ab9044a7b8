import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base64 } from '@scure/base';
import { utf8 } from '../crypto/encoding.js';

const PREFIX = 'whsec_';

/** A new Standard Webhooks secret: `whsec_` and 24 random bytes in base64. */
export const newWebhookSecret = (randomBytes: Uint8Array): string => PREFIX + base64.encode(randomBytes);

/**
 * The `webhook-signature` header value of the Standard Webhooks specification: `v1,` and the
 * base64 HMAC-SHA256, keyed by the secret's decoded bytes, of `id.timestamp.body`.
 */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const key = base64.decode(secret.slice(PREFIX.length));
  return `v1,${base64.encode(hmac(sha256, key, utf8(`${id}.${timestamp}.${body}`)))}`;
}
