import { LatchkeyError } from '../errors.js';
import { isPublicHost } from '../shared/public-host.js';

/**
 * Checks a webhook URL when it is registered: https (plain http only for a local target), no
 * credentials or fragment, and no local or non-public literal target unless the operator allows
 * private targets (`createLatchkey({ webhooks: { allowPrivateTargets } })`).
 */
export function checkWebhookUrl(raw: string, allowPrivate: boolean): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new LatchkeyError('invalid_webhook_url', 'The webhook URL is not an absolute URL.');
  }
  const local = !isPublicHost(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local))
    throw new LatchkeyError(
      'invalid_webhook_url',
      'Webhook URLs must use https (plain http only for localhost).',
    );
  if (url.username || url.password || url.hash)
    throw new LatchkeyError('invalid_webhook_url', 'A webhook URL may not carry credentials or a fragment.');
  if (local && !allowPrivate)
    throw new LatchkeyError(
      'webhook_url_not_allowed',
      'The webhook URL points at localhost or a loopback, private or other non-public address; only the server operator can allow those (createLatchkey option webhooks.allowPrivateTargets).',
    );
  return url.href;
}
