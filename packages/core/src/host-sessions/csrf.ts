const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * `refused`: a cross-site state-changing request. `scheme_mismatch`: refused too, but its origin
 * is the host's own with `https` where the host sees `http`: a TLS proxy the host does not trust
 * (Express without `trust proxy`), which the operator must hear about rather than a bare 403.
 */
export type CrossSiteVerdict = 'allowed' | 'refused' | 'scheme_mismatch';

/**
 * Whether a request that a browser signed in by cookie may change state: only from the host's
 * own origin or one of the App's allowed origins. `Origin` decides when present; without it,
 * `Sec-Fetch-Site: same-origin` (or `none`, a navigation the user typed) passes. A request with
 * neither is refused: every browser that sends cookies cross-site also sends one of them.
 */
export function crossSiteVerdict(request: {
  method: string;
  origin: string | undefined;
  referer?: string | undefined;
  secFetchSite: string | undefined;
  ownOrigin: string;
  allowedOrigins: readonly string[];
}): CrossSiteVerdict {
  if (SAFE_METHODS.has(request.method.toUpperCase())) return 'allowed';
  const { origin } = request;
  if (origin !== undefined && origin !== 'null') {
    if (origin === request.ownOrigin || request.allowedOrigins.includes(origin)) return 'allowed';
    return httpsOfOwn(origin, request.ownOrigin) ? 'scheme_mismatch' : 'refused';
  }
  if (request.secFetchSite === 'same-origin' || request.secFetchSite === 'none') return 'allowed';
  return request.referer !== undefined && httpsOfOwn(refererOrigin(request.referer), request.ownOrigin)
    ? 'scheme_mismatch'
    : 'refused';
}

/** `https://host` where the host itself saw `http://host` (same host and port). */
const httpsOfOwn = (origin: string | undefined, ownOrigin: string): boolean =>
  origin !== undefined &&
  ownOrigin.startsWith('http://') &&
  origin.startsWith('https://') &&
  origin.slice('https://'.length) === ownOrigin.slice('http://'.length);

function refererOrigin(referer: string): string | undefined {
  try {
    return new URL(referer).origin;
  } catch {
    return undefined;
  }
}
