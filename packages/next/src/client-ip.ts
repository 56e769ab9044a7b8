/**
 * The client's address from the proxy headers, counting `trustedHops` proxies in front of the
 * app (default 1). Each proxy appends the address it saw to `x-forwarded-for`, and a client can
 * send any value it likes there, so the trustworthy entry is the one `trustedHops` from the
 * right, never the first. With no `x-forwarded-for`, `x-real-ip` (which proxies overwrite).
 * Behind no proxy at all, pass your own `clientIp` option instead.
 */
export function clientIpFromHeaders(headers: Headers, trustedHops = 1): string | undefined {
  const hops = (headers.get('x-forwarded-for') ?? '')
    .split(',')
    .map((hop) => hop.trim())
    .filter(Boolean);
  if (hops.length > 0) return hops[Math.max(0, hops.length - trustedHops)];
  return headers.get('x-real-ip')?.trim() || undefined;
}
