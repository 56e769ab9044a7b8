import type { IncomingMessage } from 'node:http';

/** What a Node adapter answers itself, in the documented error shape, instead of asking the core. */
export interface Unservable {
  status: number;
  error_type: string;
  error_message: string;
  error_field?: string;
}

/** Methods Node parses but a Web Request refuses to carry (Fetch's forbidden methods). */
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

/**
 * What Node accepted but Latchkey cannot be asked: a forbidden method, or a Host header that is
 * no host (`a b`, `a%zz`, `u@evil`, `[::1`).
 */
export function unservableRequest(req: Pick<IncomingMessage, 'method' | 'headers'>): Unservable | undefined {
  const method = req.method ?? 'GET';
  if (FORBIDDEN_METHODS.has(method.toUpperCase()))
    return {
      status: 405,
      error_type: 'method_not_allowed',
      error_message: `The method ${method} is not served.`,
    };
  const host = req.headers.host;
  if (host !== undefined && !isPlainHost(host))
    return {
      status: 400,
      error_type: 'invalid_field',
      error_message: 'The Host header is not a valid host name or address, with an optional port.',
      error_field: 'host',
    };
  return undefined;
}

/** Host headers found plain before: a server sees a handful, and parsing one costs a URL. */
const plainHosts = new Set<string>();

/** True when `host` is a host with an optional port and nothing else a URL would read into it. */
function isPlainHost(host: string): boolean {
  if (plainHosts.has(host)) return true;
  if (!parsesAsPlainHost(host)) return false;
  if (plainHosts.size >= 256) plainHosts.clear();
  plainHosts.add(host);
  return true;
}

function parsesAsPlainHost(host: string): boolean {
  if (host === '' || !URL.canParse(`http://${host}`)) return false;
  const url = new URL(`http://${host}`);
  return (
    url.username === '' && url.password === '' && url.pathname === '/' && url.search === '' && url.hash === ''
  );
}
