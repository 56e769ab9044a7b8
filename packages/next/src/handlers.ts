import {
  cookieSite,
  cookiesForApiAnswer,
  type Latchkey,
  resolveCookieOptions,
  type SessionCookieOptions,
} from '@latchkey/core';
import { normalizeBasePath, stripBasePath } from './base-path.js';
import { clientIpFromHeaders } from './client-ip.js';
import { withCookies } from './session.js';

/** The part of a latchkey instance the handlers need. */
export type LatchkeyFetcher = Pick<Latchkey, 'fetch'>;

/**
 * A latchkey, or a function giving one. The function form is called on each request (cache
 * inside it), so `next build`, which imports route modules, never opens the host's database.
 */
export type LatchkeySource = LatchkeyFetcher | (() => LatchkeyFetcher | Promise<LatchkeyFetcher>);

export interface LatchkeyHandlersOptions {
  /**
   * The URL path the route is mounted at, as seen in `request.url` (so including Next's own
   * `basePath` setting, if any). Default `/api`, for `app/api/[...latchkey]/route.ts`.
   */
  basePath?: string;
  /**
   * The client's address (device fingerprints, per-IP rate limits). Default: from
   * `x-forwarded-for`, `trustedProxyHops` entries from the right, else `x-real-ip`.
   */
  clientIp?: (request: Request) => string | undefined;
  /** How many proxies (load balancer, CDN) stand in front of the app; default 1. */
  trustedProxyHops?: number;
  /**
   * Opt-in session cookies, as in the Express router: a successful sign-in or
   * `sessions/authenticate` sets the session token and JWT cookies (HttpOnly, SameSite=Lax,
   * Secure but on localhost); a successful `sessions/revoke` clears them. Pass the same value to
   * `getSession` / `withSession`, which read them.
   */
  cookies?: boolean | SessionCookieOptions;
}

export type RouteHandler = (request: Request) => Promise<Response>;

export interface LatchkeyRouteHandlers {
  GET: RouteHandler;
  POST: RouteHandler;
  PUT: RouteHandler;
  PATCH: RouteHandler;
  DELETE: RouteHandler;
  OPTIONS: RouteHandler;
}

/**
 * App Router route handlers serving Latchkey's `/v1` API below `basePath`:
 * `export const { GET, POST, DELETE } = latchkeyHandlers(latchkey);` in
 * `app/api/[...latchkey]/route.ts`. Web-standard only, so the route may use the edge runtime.
 */
export function latchkeyHandlers(
  source: LatchkeySource,
  options: LatchkeyHandlersOptions = {},
): LatchkeyRouteHandlers {
  const basePath = normalizeBasePath(options.basePath ?? '/api');
  const clientIpOf =
    options.clientIp ??
    ((request: Request) => clientIpFromHeaders(request.headers, options.trustedProxyHops ?? 1));
  const resolve = typeof source === 'function' ? source : () => source;
  const cookies = resolveCookieOptions(options.cookies);

  const handle: RouteHandler = async (request) => {
    const latchkey = await resolve();
    const clientIp = clientIpOf(request);
    const forwarded = forwardedRequest(request, basePath);
    const response = await latchkey.fetch(forwarded, clientIp ? { clientIp } : {});
    if (!cookies || request.method !== 'POST' || response.status !== 200) return response;
    const url = new URL(forwarded.url);
    const body = await response.clone().text();
    const site = cookieSite(
      url.hostname,
      url.protocol.slice(0, -1),
      (name) => request.headers.get(name) ?? undefined,
    );
    return withCookies(response, cookiesForApiAnswer(cookies, site, url.pathname, body));
  };
  return { GET: handle, POST: handle, PUT: handle, PATCH: handle, DELETE: handle, OPTIONS: handle };
}

/** The same request, addressed to the path below `basePath`, body streamed through unread. */
function forwardedRequest(request: Request, basePath: string): Request {
  const url = new URL(request.url);
  // Outside basePath (a mismatched option): send it where no route is, so Latchkey answers 404
  // instead of possibly serving a /v1 route the host never meant to expose at this path.
  url.pathname = stripBasePath(url.pathname, basePath) ?? '/';
  const hasBody = request.body !== null && request.method !== 'GET' && request.method !== 'HEAD';
  const init: RequestInit & { duplex?: 'half' } = {
    method: request.method,
    headers: request.headers,
    signal: request.signal,
  };
  if (hasBody) {
    init.body = request.body;
    init.duplex = 'half';
  }
  return new Request(url, init);
}
