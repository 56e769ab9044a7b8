import { domainProblem, isLoopbackHost } from './hostnames.js';

/** Longest URL a setting holds: the longest redirect URL a request may name. */
export const MAX_URL_LENGTH = 2000;

/**
 * Why `raw` cannot be a URL a setting sends browsers or users to, or undefined when it can: an
 * absolute `https:` URL (plain `http:` only on the developer's own machine), without
 * credentials or a fragment, whose host is a registrable domain (or below one) or loopback.
 * Every other scheme is refused: `javascript:`, `data:`, `blob:`, `file:` and the like run or
 * read something where a link is expected, and a custom app scheme (`myapp://`) can be claimed
 * by any app on the device, which would then receive what the URL carries.
 */
export function webUrlProblem(raw: string): string | undefined {
  if (raw.length > MAX_URL_LENGTH) return `a URL has at most ${MAX_URL_LENGTH} characters`;
  // Browsers and servers read backslashes, spaces and control characters differently.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  if (/[\s\\\u0000-\u001f\u007f]/.test(raw))
    return 'a URL may not hold spaces, backslashes or control characters';
  if (!URL.canParse(raw)) return 'not an absolute URL';
  const url = new URL(raw);
  const loopback = isLoopbackHost(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback))
    return `only https URLs are accepted (http only for localhost), not '${url.protocol}'`;
  if (url.username !== '' || url.password !== '') return 'a URL may not carry a user name or password';
  if (raw.includes('#')) return 'a URL may not carry a fragment (#…)';
  if (loopback) return undefined;
  return domainProblem(url.hostname);
}

/**
 * Why `raw` (`host` or `host:port`) cannot name the site a setting speaks for, or undefined:
 * the host as in a URL (a registrable domain or below one, or loopback), the port 1–65535.
 */
export function hostAndPortProblem(raw: string): string | undefined {
  const match = /^(\[[^\]]*\]|[^:]*)(?::(\d{1,5}))?$/.exec(raw);
  if (!match) return `'${raw}' is not host or host:port`;
  const [, host = '', port] = match;
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65_535))
    return `port ${port} is out of range`;
  if (isLoopbackHost(host)) return undefined;
  return domainProblem(host);
}
