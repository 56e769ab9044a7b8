/**
 * The client's address as the nearest proxy reports it: the first hop of `x-forwarded-for`,
 * else `x-real-ip`. These headers are only as trustworthy as the proxy in front of the app
 * (Vercel and most load balancers overwrite them); pass your own `clientIp` option otherwise.
 */
export function clientIpFromHeaders(headers: Headers): string | undefined {
  const firstHop = headers.get('x-forwarded-for')?.split(',')[0]?.trim();
  if (firstHop) return firstHop;
  return headers.get('x-real-ip')?.trim() || undefined;
}
