import { parse as parseDomain } from 'tldts';

/** Longest host name DNS can carry (RFC 1035), and longest label. */
export const MAX_HOSTNAME_LENGTH = 253;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Whether a URL's hostname (as `new URL` gives it, IPv6 in brackets) is the developer's own
 * machine: `localhost`, a `.localhost` name, 127.0.0.0/8 or `[::1]`. Browsers treat these as
 * secure contexts over plain http, so they are the only hosts a setting may reach over http.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return (
    host === 'localhost' ||
    (host.endsWith('.localhost') && domainSyntaxProblem(host) === undefined) ||
    host === '[::1]' ||
    /^127(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}$/.test(host)
  );
}

/**
 * Why `host` cannot stand where a setting names a domain (a passkey relying party, a site's
 * host), or undefined when it can: a syntactically valid DNS name (A-labels, no trailing dot)
 * that is a registrable domain or a subdomain of one by the public-suffix list, or `localhost`.
 * A public suffix (`com`, `co.uk`, `github.io`), a wildcard or an IP address would hand the
 * setting to everyone under it, or to no one.
 */
export function domainProblem(host: string): string | undefined {
  const name = host.toLowerCase();
  if (name === 'localhost') return undefined;
  const syntax = domainSyntaxProblem(name);
  if (syntax) return syntax;
  if (!name.includes('.')) return `'${host}' is a single label; a domain such as example.com is required`;
  // Private suffixes count too (github.io, vercel.app): browsers scope cookies and passkeys by them.
  if (parseDomain(name, { allowPrivateDomains: true }).domain === null)
    return `'${host}' is a public suffix, not a registrable domain (e.g. example.com, app.example.co.uk)`;
  return undefined;
}

function domainSyntaxProblem(name: string): string | undefined {
  if (name.length > MAX_HOSTNAME_LENGTH) return `a host name has at most ${MAX_HOSTNAME_LENGTH} characters`;
  const labels = name.split('.');
  if (!labels.every((label) => LABEL.test(label)))
    return `'${name}' is not a host name (letters, digits and inner hyphens in dot-separated labels; xn-- form for other scripts)`;
  // An all-numeric last label is an IPv4 address to every URL parser (RFC 3696 section 2).
  if (/^\d+$/.test(labels[labels.length - 1] as string))
    return `'${name}' is an IP address; a domain name is required here`;
  return undefined;
}
