import {
  consoleLogger,
  cookiesForApiAnswer,
  errorCatalogue,
  isLatchkeyError,
  type Latchkey,
  resolveCookieOptions,
  type SessionCookieOptions,
} from '@latchkey/core';
import {
  answerError,
  isApiPath,
  PLAIN_PATH,
  sendResponse,
  settleUnreadBody,
  unservableRequest,
  webRequest,
} from '@latchkey/core/node';
import type {
  Request as ExpressRequest,
  Response as ExpressResponse,
  NextFunction,
  RequestHandler,
} from 'express';
import { appendCookies, expressCookieSite } from './session.js';

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
  /**
   * What becomes of a request whose path, below the mount point, is outside `/v1`. By default it
   * goes on to the next handler, so the router can be mounted at the root before the host's own
   * routes. `false` answers it with Latchkey's 404 `route_not_found`: for the last handler of an
   * app whose every answer is JSON.
   */
  fallthrough?: boolean;
}

/**
 * Express middleware serving Latchkey's `/v1` routes; mount it at any prefix
 * (`app.use('/auth', latchkeyRouter(latchkey))`) or at the root. Requests outside `/v1` go on
 * to the next handler (see `fallthrough`), so it can come before the host's own routes. It works
 * with or without `express.json()` before it: a body the host already parsed is passed on as
 * JSON, otherwise the raw stream is. The request guard applies to the requests it serves.
 *
 * It is one middleware function, not an Express `Router`: a Router nested in the host's app
 * dispatches each request a second time (its own layer walk, prefix trimming and closures),
 * which cost about 7% of the throughput of `sessions/authenticate`. Mounted with `app.use`, a
 * function is given the same path below the mount point.
 */
export function latchkeyRouter(
  latchkey: LatchkeyHandler,
  options: LatchkeyRouterOptions = {},
): RequestHandler {
  const cookies = resolveCookieOptions(options.cookies);
  const fallthrough = options.fallthrough ?? true;
  const guard = latchkeyRequestGuard();
  const serve = (req: ExpressRequest, res: ExpressResponse, next: NextFunction) => {
    latchkey
      .fetch(toWebRequest(req), { clientIp: req.ip })
      .then((response) => {
        if (cookies && req.method === 'POST' && response.status === 200)
          return response
            .clone()
            .text()
            .then((text) => {
              appendCookies(res, cookiesForApiAnswer(cookies, expressCookieSite(req), req.path, text));
              return answer(req, res, response);
            });
        return answer(req, res, response);
      })
      .catch(next);
  };
  // A host request passed on costs a path test, not a guard and a second dispatch.
  return (req: ExpressRequest, res: ExpressResponse, next: NextFunction) => {
    if (fallthrough && !isApiPath(req.url)) next();
    else guard(req, res, () => serve(req, res, next));
  };
}

/** Writes the core's answer; one not awaited when the answer is already whole (a text). */
function answer(req: ExpressRequest, res: ExpressResponse, response: Response): void | Promise<void> {
  // Answered before the body was read (413, 415, 401…): the connection must stay usable.
  settleUnreadBody(req, res);
  return sendResponse(response, res);
}

/**
 * Answers, in the documented error shape, what Node accepted but no route should be asked: a
 * forbidden method (TRACE, CONNECT, TRACK) or a Host header that is no host. The router runs it
 * first; mount it before a host app's own pages to give them the same guard.
 */
export function latchkeyRequestGuard() {
  return (req: ExpressRequest, res: ExpressResponse, next: NextFunction): void => {
    const refused = unservableRequest(req);
    if (!refused) {
      next();
      return;
    }
    settleUnreadBody(req, res);
    answerError(res, refused.status, refused.error_type, refused.error_message, {
      ...(refused.error_field ? { error_field: refused.error_field } : {}),
    });
  };
}

function toWebRequest(req: ExpressRequest): Request {
  // Inside a mounted router `req.url` is relative to the mount point: exactly what Latchkey routes on.
  const base = `${req.protocol}://${req.get('host') ?? 'localhost'}`;
  const url = PLAIN_PATH.test(req.url) ? `${originOf(base)}${req.url}` : new URL(req.url, base).href;
  const parsed = hasBody(req.method) && bodyAlreadyRead(req) ? bodyText(req) : undefined;
  return webRequest(req, url, parsed);
}

/** `new URL(base).origin` (host lower-cased, default port dropped), remembered per base. */
const origins = new Map<string, string>();
function originOf(base: string): string {
  let origin = origins.get(base);
  if (origin === undefined) {
    origin = new URL(base).origin;
    if (origins.size >= 256) origins.clear();
    origins.set(base, origin);
  }
  return origin;
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

/** What an http-errors style 4xx (express.static, a router) is called in Latchkey's catalogue. */
const STATUS_ERRORS: Record<number, string> = {
  404: 'route_not_found',
  405: 'method_not_allowed',
  413: 'request_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
};

export interface LatchkeyErrorHandlerOptions {
  /**
   * Answer every error in the documented shape, not only a body parser's: a LatchkeyError with
   * its own type, another 4xx (express.static's 404, …) by its status, anything else as 500
   * `internal_error` with no detail (the error goes to `report`, by default `consoleLogger.error`).
   * For the last handler of an app whose every answer should be JSON, never an HTML stack.
   */
  all?: boolean;
  report?: (err: unknown) => void;
}

/**
 * For hosts that parse bodies before Latchkey (`app.use(express.json())`): the parser's own
 * errors happen before the router runs, so mount this after it to answer them in Latchkey's
 * documented error shape: `app.use('/auth', latchkeyRouter(latchkey), latchkeyErrorHandler())`.
 * Other errors pass on to the host's handlers, unless `all` is set.
 */
export function latchkeyErrorHandler(options: LatchkeyErrorHandlerOptions = {}) {
  const report =
    options.report ?? ((err: unknown) => consoleLogger.error({ err }, 'latchkey: request failed'));
  return (err: unknown, _req: ExpressRequest, res: ExpressResponse, next: NextFunction): void => {
    if (res.headersSent) {
      next(err);
      return;
    }
    const known = BODY_PARSER_ERRORS[(err as BodyParserError | null)?.type ?? ''];
    if (known) {
      answerError(res, known.status, known.error_type, known.error_message);
      return;
    }
    if (!options.all) {
      next(err);
      return;
    }
    if (isLatchkeyError(err)) {
      if (err.retryAfter !== undefined) res.setHeader('retry-after', String(err.retryAfter));
      answerError(res, err.status, err.errorType, err.message, err.field ? { error_field: err.field } : {});
      return;
    }
    const status = Number((err as { status?: unknown } | null)?.status);
    if (Number.isInteger(status) && status >= 400 && status < 500) {
      const type = STATUS_ERRORS[status] ?? 'invalid_field';
      answerError(res, status, type, errorCatalogue[type as keyof typeof errorCatalogue].message);
      return;
    }
    report(err);
    answerError(res, 500, 'internal_error', errorCatalogue.internal_error.message);
  };
}
