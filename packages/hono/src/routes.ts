import {
  cookiesForApiAnswer,
  type Latchkey,
  resolveCookieOptions,
  type SessionCookieOptions,
} from '@latchkey/core';
import { type Context, Hono } from 'hono';
import { honoCookieSite } from './session.js';

/** The part of a latchkey instance the routes need. */
export type LatchkeyHandler = Pick<Latchkey, 'fetch'>;

export interface LatchkeyRoutesOptions {
  /**
   * Opt-in session cookies: a successful sign-in or `sessions/authenticate` answered through
   * these routes sets the session token and JWT cookies; a successful `sessions/revoke` clears
   * them. Pass the same value to `requireSession`, which reads them.
   */
  cookies?: boolean | SessionCookieOptions;
  /**
   * The client's address, for device fingerprints and rate limits. By default the socket's
   * address under `@hono/node-server`; on another runtime (or behind a proxy) pass your own,
   * e.g. from `getConnInfo(c)` of your runtime's adapter.
   */
  clientIp?: (c: Context) => string | undefined;
  /** Hono sees the scheme the connection used: `true` believes `X-Forwarded-Proto` (the cookies' Secure flag). */
  trustProxy?: boolean;
}

/**
 * Latchkey's `/v1` routes as a Hono app, to mount at any prefix:
 * `app.route('/auth', latchkeyRoutes(latchkey))` serves `/auth/v1/...` and leaves every other
 * path to the host. The request goes to the core as it is, body unread, so its limits and
 * errors are the core's own.
 */
export function latchkeyRoutes(latchkey: LatchkeyHandler, options: LatchkeyRoutesOptions = {}): Hono {
  const cookies = resolveCookieOptions(options.cookies);
  const clientIp = options.clientIp ?? nodeServerIp;
  const serve = async (c: Context): Promise<Response> => {
    const request = belowMount(c);
    const response = await latchkey.fetch(request, { clientIp: clientIp(c) });
    const withCookies = cookies && request.method === 'POST' && response.status === 200;
    if (!withCookies && !isTextResponse(response)) return response;
    // The core's text answers on Node keep their text outside undici's body, which
    // @hono/node-server writes from directly (an empty body): they go on as plain Responses.
    const text = await response.text();
    const headers = new Headers(response.headers);
    if (withCookies) {
      const path = new URL(request.url).pathname;
      for (const value of cookiesForApiAnswer(cookies, honoCookieSite(c, options.trustProxy), path, text))
        headers.append('set-cookie', value);
    }
    return new Response(text || null, { status: response.status, statusText: response.statusText, headers });
  };
  return new Hono().all('/v1', serve).all('/v1/*', serve);
}

/**
 * The request as the core routes it: its path below the mount point. The route that matched is
 * `<prefix>/v1` or `<prefix>/v1/*`, which gives the prefix to cut.
 */
function belowMount(c: Context): Request {
  const route = c.req.routePath;
  const prefix = route.slice(0, route.lastIndexOf('/v1'));
  if (prefix === '') return c.req.raw;
  const url = new URL(c.req.url);
  url.pathname = url.pathname.startsWith(prefix)
    ? url.pathname.slice(prefix.length)
    : c.req.path.slice(prefix.length);
  return new Request(url, c.req.raw);
}

/** Core's TextResponse (core's text-response.ts), known by the method only it has. */
const isTextResponse = (response: Response) => Symbol.for('latchkey.takeText') in response;

/** `@hono/node-server` hands the Node request over as `c.env.incoming`. */
function nodeServerIp(c: Context): string | undefined {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress;
}
