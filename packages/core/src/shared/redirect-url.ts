import { LatchkeyError } from '../errors.js';

/**
 * Whether `candidate` is one of the `allowed` URLs: same scheme, host, port and path (an
 * allowed entry ending in `/*` allows any path below it). Only http(s), never userinfo. The
 * candidate's own query is allowed and kept; the comparison uses the parsed, normalised URL, so
 * `..` segments, case tricks and default ports cannot slip past.
 */
export function isAllowedRedirect(candidate: string, allowed: readonly string[]): boolean {
  const url = parse(candidate);
  if (!url) return false;
  return allowed.some((entry) => {
    const prefix = entry.endsWith('/*');
    const rule = parse(prefix ? entry.slice(0, -1) : entry);
    if (!rule || rule.protocol !== url.protocol || rule.host !== url.host) return false;
    if (!prefix) return url.pathname === rule.pathname;
    return url.pathname.startsWith(rule.pathname) && !hidesPathParts(url.pathname);
  });
}

/** How many rounds of percent-decoding a path below a wildcard is looked through. */
const DECODE_ROUNDS = 4;

/**
 * True when a path, decoded as a server or a framework behind the page may decode it (once or
 * several times), holds a slash, backslash or dot-segment the URL parser did not see:
 * `/cb/..%2fadmin`, `/cb/%2e%2e%2fadmin`, `%5C`, `%252f`. Below a wildcard these would lead out
 * of the allowed folder after the redirect; a real callback path needs none of them.
 */
function hidesPathParts(pathname: string): boolean {
  let path = pathname;
  for (let round = 0; round < DECODE_ROUNDS; round++) {
    if (/%2f|%5c/i.test(path)) return true;
    let decoded: string;
    try {
      decoded = decodeURIComponent(path);
    } catch {
      return true;
    }
    if (decoded.split('/').some((segment) => segment === '.' || segment === '..') || decoded.includes('\\'))
      return true;
    if (decoded === path) return false;
    path = decoded;
  }
  // Still changing after this many rounds: nothing a real callback path does.
  return true;
}

function parse(raw: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username !== '' || url.password !== '') return undefined;
  // Backslashes and control characters are read differently by browsers and servers.
  if (/[\\\s]/.test(raw)) return undefined;
  return url;
}

/** The redirect URL with these query parameters set, its own query and fragment kept. */
export function withParams(redirect: string, params: Record<string, string>): string {
  const url = new URL(redirect);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url.toString();
}

/** The link sent: the redirect URL with `token` added. */
export const withToken = (redirect: string, token: string): string => withParams(redirect, { token });

/** The request's URL when allowed, else the App's default; the spec's error when there is neither. */
export function chooseRedirect(
  requested: string | undefined,
  fallback: string | undefined,
  allowed: readonly string[],
  field: string,
): string {
  if (requested !== undefined) {
    if (!isAllowedRedirect(requested, allowed))
      throw new LatchkeyError('redirect_url_not_allowed', undefined, { field });
    return requested;
  }
  if (fallback === undefined) throw new LatchkeyError('missing_redirect_url', undefined, { field });
  return fallback;
}
