import ipaddr from 'ipaddr.js';

/** `localhost` and its subdomains, with or without the root's trailing dot (RFC 6761). */
const LOCAL_NAMES = /^(?:.+\.)?localhost\.?$/i;

/**
 * IANA's IPv6 Global Unicast block: everything outside it is reserved or special (the IPv4-in-
 * IPv6 forms `::ffff:…`, `::a.b.c.d` and `64:ff9b::`, site-local `fec0::`, unique-local, link-
 * local, multicast), so no ipaddr.js range name has to be trusted to cover it.
 */
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * Whether an address is plain public unicast, the only kind a webhook may reach unless the
 * operator allows private targets. Everything else is refused: loopback, private, link-local,
 * carrier-grade NAT, multicast, broadcast, unspecified, documentation and benchmarking ranges,
 * the special-purpose ranges of IANA's registries (ipaddr.js's `range()`), and every address that
 * carries an IPv4 address inside IPv6 (mapped, compatible, NAT64, 6to4, Teredo), which a host may
 * route to the embedded, possibly private, IPv4 address. Anything that does not parse is refused.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv4') return ip.range() === 'unicast';
  const v6 = ip as ipaddr.IPv6;
  // A zone names a link: the address is link-scoped whatever its digits say.
  return v6.zoneId === undefined && v6.match(GLOBAL_UNICAST) && v6.range() === 'unicast';
}

/**
 * The address a URL's host names when it is an IP literal (brackets taken off), else undefined.
 * The WHATWG parser already writes IPv4 in dotted decimal (`0x7f.1` becomes `127.0.0.1`); any
 * other IPv4 spelling left in a host is read as an address too, never as a name.
 */
export function literalAddress(hostname: string): string | undefined {
  if (hostname.startsWith('[') && hostname.endsWith(']')) return hostname.slice(1, -1);
  return ipaddr.IPv4.isValid(hostname) ? hostname : undefined;
}

/**
 * Whether a URL's host may be reached as written: not a local name, and not a literal outside
 * public unicast. A name's addresses are checked when it is resolved, at delivery.
 */
export function isPublicHost(hostname: string): boolean {
  if (LOCAL_NAMES.test(hostname)) return false;
  const address = literalAddress(hostname);
  return address === undefined || isPublicAddress(address);
}
