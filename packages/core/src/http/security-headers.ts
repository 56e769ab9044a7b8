/**
 * Headers every answer carries. The API only ever answers JSON: nothing may sniff it into
 * another type, frame it, leak the URL onward, or keep a copy of an answer that may hold a
 * session token (a route that is safe to cache, such as the public JWKS, sets its own
 * Cache-Control).
 */
const HEADERS: ReadonlyArray<readonly [string, string]> = Object.entries({
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
});

export function addSecurityHeaders(headers: Headers): void {
  for (const [name, value] of HEADERS) headers.set(name, value);
  if (!headers.has('cache-control')) headers.set('cache-control', 'no-store');
}
