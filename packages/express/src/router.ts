import { randomBytes } from 'node:crypto';
import {
  cookiesForApiAnswer,
  type Latchkey,
  resolveCookieOptions,
  type SessionCookieOptions,
} from '@latchkey/core';
import {
  type Request as ExpressRequest,
  type Response as ExpressResponse,
  type NextFunction,
  Router,
} from 'express';
import { sendResponse } from './send-response.js';
import { appendCookies } from './session.js';
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
    latchkey
      .fetch(toWebRequest(req), { clientIp: req.ip })
      .then(async (response) => {
        if (cookies && req.method === 'POST' && response.status === 200)
          appendCookies(
            res,
            cookiesForApiAnswer(cookies, req.hostname ?? '', req.path, await response.clone().text()),
          );
        return sendResponse(response, res);
      })
      .catch(next);
  });
  return router;
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
    const request_id = `req_${randomBytes(12).toString('base64url')}`;
    res.status(known.status).set('x-request-id', request_id).json({
      status_code: known.status,
      request_id,
      error_type: known.error_type,
      error_message: known.error_message,
    });
  };
}
