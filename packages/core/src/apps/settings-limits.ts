import { MAX_HOSTNAME_LENGTH } from '../shared/hostnames.js';
import { MAX_URL_LENGTH } from '../shared/web-url.js';

/**
 * Bounds a settings write must keep (docs/settings.md lists them). They are checked when
 * settings are written, not read: a document stored before a bound existed still loads.
 * Ranges the schema itself has had from the start (message lengths, the origin and SMS lists)
 * stay in the schema.
 */
export const SETTINGS_LIMITS = {
  /** The whole document as stored, in characters of its JSON: what every read parses. */
  documentJsonChars: 131_072,
  /** Entries of `redirect_urls.login`, of `redirect_urls.signup` and of `redirect_urls.invite`, each. */
  redirectUrls: 50,
  urlChars: MAX_URL_LENGTH,
  /** Entries of `webauthn.allowed_domains`. */
  webauthnDomains: 50,
  domainChars: MAX_HOSTNAME_LENGTH,
  /** `webauthn.rp_name`: the App name's own bound. */
  rpNameChars: 200,
  /** Rules in `rate_limits.routes`, and the characters of a route key. */
  routeRules: 200,
  routeKeyChars: 200,
} as const;
