import {
  type CookieSite,
  clearedSessionCookies,
  cookieSite,
  type HostRequest,
  type HostSessionOptions,
  hostErrorBody,
  hostSessionResolver,
  isLatchkeyError,
  LatchkeyError,
  type LatchkeySessions,
  resolveCookieOptions,
  type SessionCheck,
} from '@latchkey/core';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The signed-in session: set by `requireSession` (always) and `optionalSession` (when one is
     * sent); null otherwise. Declared by the `latchkey` plugin.
     */
    auth: SessionCheck | null;
  }
}

export type { LatchkeySessions };
export type SessionHookOptions = HostSessionOptions;

/** A route-level `onRequest` hook: `{ onRequest: requireSession(latchkey) }`. */
export type SessionHook = (
  request: FastifyRequest,
  reply: FastifyReply,
  done: HookHandlerDoneFunction,
) => void;

/** Answers 401 unless the request carries a live session; sets `request.auth`. */
export function requireSession(latchkey: LatchkeySessions, options: SessionHookOptions = {}): SessionHook {
  return sessionHook(latchkey, options, true);
}

/** Sets `request.auth` when the request carries a live session, and carries on either way. */
export function optionalSession(latchkey: LatchkeySessions, options: SessionHookOptions = {}): SessionHook {
  return sessionHook(latchkey, options, false);
}

/**
 * A route handler that ends the request's session and clears the cookies
 * (`app.post('/logout', revokeSession(latchkey, { cookies: true }))`): with HttpOnly cookies,
 * page scripts cannot read the token to send it to `sessions/revoke` themselves.
 */
export function revokeSession(latchkey: LatchkeySessions, options: SessionHookOptions = {}) {
  const resolve = hostSessionResolver(latchkey, options);
  const cookies = resolveCookieOptions(options.cookies);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    try {
      const { session } = await resolve(hostRequest(request), { revoking: true });
      if (session.kind === 'error') return sendError(reply, session.error);
      if (session.kind === 'none') return sendError(reply, new LatchkeyError('session_required'));
      const revoked = await latchkey.sessions.revoke(session.appId, session.credential);
      if (cookies) appendCookies(reply, clearedSessionCookies(cookies, fastifyCookieSite(request)));
      return reply.code(200).send(revoked);
    } catch (err) {
      if (isLatchkeyError(err)) return sendError(reply, err);
      throw err;
    }
  };
}

function sessionHook(
  latchkey: LatchkeySessions,
  options: SessionHookOptions,
  required: boolean,
): SessionHook {
  const resolve = hostSessionResolver(latchkey, options);
  return (request, reply, done) => {
    const { headers } = request;
    // A JWT verified before: the handler runs in this same tick, no promise in between.
    const known = resolve.known(request.method, headers.authorization, firstOf(headers.cookie), request);
    if (known !== undefined) {
      request.auth = known;
      done();
      return;
    }
    resolve(hostRequest(request)).then(
      ({ session, setCookies }) => {
        appendCookies(reply, setCookies);
        if (session.kind === 'session') request.auth = session.auth;
        if (session.kind === 'session' || !required) return done();
        // A hook that answers does not call done: Fastify sends the reply and skips the handler.
        sendError(reply, session.kind === 'error' ? session.error : new LatchkeyError('session_required'));
      },
      (err: unknown) => done(err as Error),
    );
  };
}

const firstOf = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

function hostRequest(request: FastifyRequest): HostRequest {
  return {
    method: request.method,
    header: (name) => firstOf(request.headers[name]),
    // Fastify works these out per call (trustProxy, headers): read only when a cookie is involved.
    get origin() {
      return `${request.protocol}://${request.host}`;
    },
    get hostname() {
      return request.hostname;
    },
  };
}

/** Where a session cookie goes: the host name and scheme Fastify sees, and the browser's https. */
export function fastifyCookieSite(request: FastifyRequest): CookieSite {
  return cookieSite(request.hostname, request.protocol, (name) => firstOf(request.headers[name]));
}

export function appendCookies(reply: FastifyReply, setCookies: readonly string[]): void {
  // Fastify keeps each Set-Cookie given to reply.header as its own header line.
  for (const value of setCookies) reply.header('set-cookie', value);
}

/** The documented error body. */
function sendError(reply: FastifyReply, error: LatchkeyError): FastifyReply {
  const body = hostErrorBody(error);
  return reply.code(error.status).header('x-request-id', body.request_id).send(body);
}
