import type { Latchkey } from '@latchkey/core';
import {
  type Request as ExpressRequest,
  type Response as ExpressResponse,
  type NextFunction,
  Router,
} from 'express';
import {
  clearSessionCookies,
  type ResolvedCookieOptions,
  resolveCookieOptions,
  type SessionCookieOptions,
  setSessionCookies,
} from './cookies.js';
import { answerError } from './error-answer.js';
import { settleUnreadBody } from './unread-body.js';
import { sendResponse } from './send-response.js';
import { webRequest } from './web-request.js';

/** The part of a latchkey instance the router needs. */
export type LatchkeyHandler = Pick<Latchkey, 'fetch'>;

export interface LatchkeyRouterOptions {
  /**
   * Opt-in session cookies: a successful sign-in or `sessions/authenticate` answered through the
   * router sets the session token and JWT cookies (HttpOnly, SameSite=Lax, Secure but on
   * localhost); a successful `sessions/revoke` clears them. Pass the same value to
   * `requireSession`, which reads them.
   */
  cookies?: boolean | SessionCookieOptions;
}

/**
 * An Express router serving Latchkey's `/v1` routes; mount it at any prefix
 * (`app.use('/auth', latchkeyRouter(latchkey))`). It works with or without `express.json()`
 * before it: a body the host already parsed is passed on as JSON, otherwise the raw stream is.
 */
export function latchkeyRouter(latchkey: LatchkeyHandler, options: LatchkeyRouterOptions = {}): Router {
  const router = Router();
  const cookies = resolveCookieOptions(options.cookies);
  router.use((req: ExpressRequest, res: ExpressResponse, next: NextFunction) => {
    const refused = unservable(req);
    if (refused) {
      settleUnreadBody(req, res);
      answerError(res, refused.status, refused.error_type, refused.error_message, {
        ...(refused.error_field ? { error_field: refused.error_field } : {}),
      });
      return;
    }
    latchkey
      .fetch(toWebRequest(req), { clientIp: req.ip })
      .then(async (response) => {
        if (cookies && req.method === 'POST' && response.status === 200)
          sessionCookies(req, res, cookies, await response.clone().text());
        // Answered before the body was read (413, 415, 401…): the connection must stay usable.
        settleUnreadBody(req, res);
        return sendResponse(response, res);
      })
      .catch(next);
  });
  return router;
}

/** Sets the session cookies from an answer that issued a session, clears them after a revoke. */
function sessionCookies(
  req: ExpressRequest,
  res: ExpressResponse,
  cookies: ResolvedCookieOptions,
  body: string,
) {
  if (req.path === '/v1/auth/sessions/revoke') {
    clearSessionCookies(req, res, cookies);
    return;
  }
  if (!body.includes('"session_jwt"')) return;
  let parsed: { session_token?: unknown; session_jwt?: unknown; session?: { expires_at?: unknown } };
  try {
    parsed = JSON.parse(body);
  } catch {
    return;
  }
  if (typeof parsed.session_jwt !== 'string' || typeof parsed.session?.expires_at !== 'number') return;
  setSessionCookies(req, res, cookies, {
    session_jwt: parsed.session_jwt,
    ...(typeof parsed.session_token === 'string' ? { session_token: parsed.session_token } : {}),
    expiresAt: parsed.session.expires_at,
  });
}

/** Methods Node parses but a Web Request refuses to carry (Fetch's forbidden methods). */
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

/**
 * What Node accepted but Latchkey cannot be asked: a forbidden method, or a Host header that is
 * no host (`a b`, `a%zz`, `u@evil`, `[::1`). Answered here, in the documented shape.
 */
function unservable(
  req: ExpressRequest,
): { status: number; error_type: string; error_message: string; error_field?: string } | undefined {
  if (FORBIDDEN_METHODS.has(req.method.toUpperCase()))
    return {
      status: 405,
      error_type: 'method_not_allowed',
      error_message: `The method ${req.method} is not served.`,
    };
  const host = req.get('host');
  if (host !== undefined && !isPlainHost(host))
    return {
      status: 400,
      error_type: 'invalid_field',
      error_message: 'The Host header is not a valid host name or address, with an optional port.',
      error_field: 'host',
    };
  return undefined;
}

/** True when `host` is a host with an optional port and nothing else a URL would read into it. */
function isPlainHost(host: string): boolean {
  if (host === '' || !URL.canParse(`http://${host}`)) return false;
  const url = new URL(`http://${host}`);
  return (
    url.username === '' && url.password === '' && url.pathname === '/' && url.search === '' && url.hash === ''
  );
}

function toWebRequest(req: ExpressRequest): Request {
  // Inside a mounted router `req.url` is relative to the mount point: exactly what Latchkey routes on.
  const url = new URL(req.url, `${req.protocol}://${req.get('host') ?? 'localhost'}`).href;
  const parsed = hasBody(req.method) && bodyAlreadyRead(req) ? bodyText(req) : undefined;
  return webRequest(req, url, parsed);
}

const hasBody = (method: string) => method !== 'GET' && method !== 'HEAD';

const bodyText = (req: ExpressRequest) =>
  typeof req.body === 'string' ? req.body : JSON.stringify(req.body ?? null);

/** True when a body parser upstream consumed the stream (express.json and friends set `_body`). */
function bodyAlreadyRead(req: ExpressRequest): boolean {
  return (req as ExpressRequest & { _body?: boolean })._body === true || req.readableEnded;
}

/** What body-parser (`express.json()` and friends) attaches to the errors it raises. */
interface BodyParserError {
  type?: string;
  status?: number;
}

const BODY_PARSER_ERRORS: Record<string, { status: number; error_type: string; error_message: string }> = {
  'entity.parse.failed': {
    status: 400,
    error_type: 'invalid_json',
    error_message: 'The request body is not valid JSON.',
  },
  'entity.too.large': {
    status: 413,
    error_type: 'request_too_large',
    error_message: 'The request body is larger than the limit.',
  },
  'request.size.invalid': {
    status: 400,
    error_type: 'invalid_json',
    error_message: 'The request body is shorter than its Content-Length.',
  },
  'encoding.unsupported': {
    status: 415,
    error_type: 'unsupported_media_type',
    error_message: 'Send the request body as UTF-8 JSON.',
  },
  'charset.unsupported': {
    status: 415,
    error_type: 'unsupported_media_type',
    error_message: 'Send the request body as UTF-8 JSON.',
  },
};

/**
 * For hosts that parse bodies before Latchkey (`app.use(express.json())`): the parser's own
 * errors happen before the router runs, so mount this after it to answer them in Latchkey's
 * documented error shape: `app.use('/auth', latchkeyRouter(latchkey), latchkeyErrorHandler())`.
 * Other errors pass on to the host's handlers.
 */
export function latchkeyErrorHandler() {
  return (err: unknown, _req: ExpressRequest, res: ExpressResponse, next: NextFunction): void => {
    const known = BODY_PARSER_ERRORS[(err as BodyParserError | null)?.type ?? ''];
    if (!known || res.headersSent) {
      next(err);
      return;
    }
    answerError(res, known.status, known.error_type, known.error_message);
  };
}
