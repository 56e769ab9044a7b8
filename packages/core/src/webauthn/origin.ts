import { LatchkeyError } from '../errors.js';

/** `localhost` stands for a developer's machine: any port, over http or https. */
const LOCALHOST = 'localhost';

const normalize = (domain: string) => domain.trim().toLowerCase();

/** The relying-party id for `domain` when the App allows it; otherwise the documented 400. */
export function allowedRpId(domain: string, allowedDomains: readonly string[], field = 'domain'): string {
  const rpId = normalize(domain);
  if (!allowedDomains.some((allowed) => normalize(allowed) === rpId))
    throw new LatchkeyError('webauthn_domain_not_allowed', undefined, { field });
  return rpId;
}

export const isDomainAllowed = (rpId: string, allowedDomains: readonly string[]) =>
  allowedDomains.some((allowed) => normalize(allowed) === rpId);

/**
 * Whether a browser origin (from clientDataJSON) may use `rpId`: exactly `https://<rpId>`, or for
 * `localhost` http(s)://localhost on any port. Subdomains do not count: an App that signs in on
 * several hosts lists each as its own domain.
 */
export function isAllowedOrigin(origin: string, rpId: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  // An origin is scheme, host and port only; anything else (a path, odd case) is not one.
  if (url.origin !== origin) return false;
  if (rpId === LOCALHOST)
    return url.hostname === LOCALHOST && (url.protocol === 'http:' || url.protocol === 'https:');
  return origin === `https://${rpId}`;
}
