import {
  type HostRequest,
  type HostSessionOptions,
  type HostSessionResult,
  hostErrorBody,
  hostSessionResolver,
  LatchkeyError,
  type LatchkeySessions,
  type SessionCheck,
} from '@latchkey/core';

/** A latchkey with sessions, or a function giving one (as for `latchkeyHandlers`). */
export type LatchkeySessionSource = LatchkeySessions | (() => LatchkeySessions | Promise<LatchkeySessions>);

/** The same options as the Express helpers: `app_id`, `mode`, `cookies`. */
export type GetSessionOptions = HostSessionOptions;

/**
 * What the helpers read: a route handler's `Request`, or in a server component
 * `{ headers: await headers() }` (from `next/headers`).
 */
export interface SessionRequest {
  headers: { get(name: string): string | null };
  method?: string;
  url?: string;
}

// One resolver per instance and options, so the App id and origins lookups are cached across requests.
const resolvers = new WeakMap<LatchkeySessions, Map<string, ReturnType<typeof hostSessionResolver>>>();

function resolverFor(latchkey: LatchkeySessions, options: GetSessionOptions) {
  const byOptions = resolvers.get(latchkey) ?? new Map();
  resolvers.set(latchkey, byOptions);
  const key = JSON.stringify([
    options.app_id,
    options.mode,
    options.cookies,
    options.freshWithin,
    options.factors,
    options.organization,
    options.permission,
  ]);
  const resolver = byOptions.get(key) ?? hostSessionResolver(latchkey, options);
  byOptions.set(key, resolver);
  return resolver;
}

function hostRequest(request: SessionRequest): HostRequest {
  const host = request.headers.get('host') ?? 'localhost';
  const url = new URL(request.url ?? `http://${host}/`);
  return {
    method: (request.method ?? 'GET').toUpperCase(),
    header: (name) => request.headers.get(name) ?? undefined,
    origin: url.origin,
    hostname: url.hostname,
  };
}

const resolveSource = async (source: LatchkeySessionSource) =>
  typeof source === 'function' ? source() : source;

/**
 * The session and the `Set-Cookie` values to send back (a refreshed JWT cookie, or cleared
 * cookies that named no live session). Throws only what a client did not cause.
 */
export async function checkSession(
  source: LatchkeySessionSource,
  request: SessionRequest,
  options: GetSessionOptions = {},
): Promise<HostSessionResult> {
  const latchkey = await resolveSource(source);
  return resolverFor(latchkey, options)(hostRequest(request));
}

/**
 * The signed-in session of a route handler's request or a server component's headers, or null
 * when none is sent or the one sent is not live. Reads the `Authorization: Bearer` header (a
 * session JWT or token, told apart by shape), else the session cookies when `cookies` is set.
 * A server component cannot set cookies: use `withSession` in route handlers, which also sends
 * the refreshed JWT cookie in token mode.
 */
export async function getSession(
  source: LatchkeySessionSource,
  request: SessionRequest,
  options: GetSessionOptions = {},
): Promise<SessionCheck | null> {
  const { session } = await checkSession(source, request, options);
  return session.kind === 'session' ? session.auth : null;
}

export type SessionRouteHandler<C> = (
  request: Request,
  auth: SessionCheck,
  context: C,
) => Response | Promise<Response>;

/**
 * A route handler that runs only for a live session and answers 401 (403 for a cross-site
 * cookie-borne write) in the documented error shape otherwise:
 * `export const GET = withSession(getLatchkey, (req, auth) => Response.json({ user_id: auth.user_id }))`.
 */
export function withSession<C = unknown>(
  source: LatchkeySessionSource,
  handler: SessionRouteHandler<C>,
  options: GetSessionOptions = {},
): (request: Request, context: C) => Promise<Response> {
  return async (request, context) => {
    const { session, setCookies } = await checkSession(source, request, options);
    const response =
      session.kind === 'session'
        ? await handler(request, session.auth, context)
        : errorResponse(session.kind === 'error' ? session.error : new LatchkeyError('session_required'));
    return withCookies(response, setCookies);
  };
}

export function errorResponse(error: LatchkeyError): Response {
  const body = hostErrorBody(error);
  return Response.json(body, { status: error.status, headers: { 'x-request-id': body.request_id } });
}

/** The response with `Set-Cookie` values added (copied first when its headers are immutable). */
export function withCookies(response: Response, setCookies: readonly string[]): Response {
  if (setCookies.length === 0) return response;
  let out = response;
  try {
    for (const value of setCookies) out.headers.append('set-cookie', value);
  } catch {
    out = new Response(response.body, response);
    for (const value of setCookies) out.headers.append('set-cookie', value);
  }
  return out;
}
