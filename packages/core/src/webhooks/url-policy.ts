import { LatchkeyError } from '../errors.js';

const LOCAL_NAMES = /^(localhost|.*\.localhost)$/i;

/**
 * Whether an address (an IP literal) is loopback, private, link-local, carrier-grade NAT,
 * unspecified or otherwise not on the public internet. Webhooks must not become a way to reach
 * the host's own network.
 */
export function isPrivateAddress(address: string): boolean {
  const host = address.replace(/^\[|\]$/g, '').toLowerCase();
  const v4 = host.match(/^(?:::ffff:)?(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 100 && b >= 64 && b <= 127) ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      a >= 224
    );
  }
  if (!host.includes(':')) return false;
  if (host === '::' || host === '::1') return true;
  // Mapped IPv4 in hex form (::ffff:7f00:1) and the private IPv6 ranges fc00::/7 and fe80::/10.
  if (host.startsWith('::ffff:')) return true;
  return /^f[cd]/.test(host) || /^fe[89ab]/.test(host);
}

const isIpLiteral = (host: string) => /^\[.*\]$/.test(host) || /^\d{1,3}(\.\d{1,3}){3}$/.test(host);

/**
 * Checks a webhook URL when it is registered: https (plain http only for localhost), no
 * credentials or fragment, and no private or loopback target unless the App allows them.
 */
export function checkWebhookUrl(raw: string, allowPrivate: boolean): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new LatchkeyError('invalid_webhook_url', 'The webhook URL is not an absolute URL.');
  }
  const local =
    LOCAL_NAMES.test(url.hostname) || (isIpLiteral(url.hostname) && isPrivateAddress(url.hostname));
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
      'The webhook URL points at a private or loopback address; the App setting webhooks.allow_private_targets allows it.',
    );
  return url.href;
}
