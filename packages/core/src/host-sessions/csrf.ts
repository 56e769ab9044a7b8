const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Whether a request that a browser signed in by cookie may change state: only from the host's
 * own origin or one of the App's allowed origins. `Origin` decides when present; without it,
 * `Sec-Fetch-Site: same-origin` (or `none`, a navigation the user typed) passes. A request with
 * neither is refused: every browser that sends cookies cross-site also sends one of them.
 */
export function crossSiteRefused(request: {
  method: string;
  origin: string | undefined;
  secFetchSite: string | undefined;
  ownOrigin: string;
  allowedOrigins: readonly string[];
}): boolean {
  if (SAFE_METHODS.has(request.method.toUpperCase())) return false;
  const { origin } = request;
  if (origin !== undefined && origin !== 'null') {
    return origin !== request.ownOrigin && !request.allowedOrigins.includes(origin);
  }
  return request.secFetchSite !== 'same-origin' && request.secFetchSite !== 'none';
}
