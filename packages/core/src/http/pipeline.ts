import type { Context, MiddlewareHandler, Next } from 'hono';
import { methodNotAllowed } from 'hono/method-not-allowed';
import { LatchkeyError } from '../errors.js';
import type { HttpApp, HttpEnv } from './env.js';
import { errorResponse } from './error-body.js';
import { addSecurityHeaders } from './security-headers.js';
import { useTextResponses } from './text-response.js';

type C = Context<HttpEnv>;
type Step = (c: C) => void | Promise<void>;

export interface PipelineOptions {
  app: HttpApp;
  /** A fresh request id. */
  requestId: () => string;
  /** The app's error handler (the one given to `app.onError`). */
  onError: (err: Error, c: C) => Response | Promise<Response>;
  /** Races the `/v1` work against the request time limit. */
  race: <T>(work: () => Promise<T>, timedOut: () => unknown) => Promise<T>;
  timedOut: () => unknown;
  cors: {
    preflight: (c: C, origin: string | undefined) => Promise<Response | undefined>;
    answer: (c: C, origin: string | undefined) => Promise<void>;
  };
  /** The `/v1` checks before the route, in order: URL text, API key, JSON body, route limit. */
  checks: readonly Step[];
  /** Runs around everything the pipeline does (a request span); left out, nothing wraps it. */
  trace?: ((c: C, handle: () => Promise<void>) => Promise<void>) | undefined;
}

/**
 * Everything a request passes through before and after its route, as one middleware: text
 * answers, the request id, security headers, 405 for a known path, and for `/v1` the CORS
 * preflight and answer, the time limit and the checks. One step instead of a dozen saves each
 * request as many async frames and compose dispatches. It keeps the order and the error
 * handling the separate middleware had: an error thrown by a check is answered by the error
 * handler right there (as Hono's compose does for each middleware), and the steps outside it
 * (CORS, 405, headers, request id) still apply to that answer.
 */
export function requestPipeline(options: PipelineOptions): MiddlewareHandler<HttpEnv> {
  const { requestId, onError, race, timedOut, cors, checks } = options;
  // Hono's own: answers the not-found of a known path with 405 and its Allow header.
  const notAllowed = methodNotAllowed({
    app: options.app,
    onMethodNotAllowed: (c, methods) => {
      const res = errorResponse(c, new LatchkeyError('method_not_allowed'));
      res.headers.set('allow', methods.join(', '));
      return res;
    },
  });

  const answerError = async (c: C, err: unknown): Promise<void> => {
    if (!(err instanceof Error)) throw err;
    c.error = err;
    c.res = await onError(err, c);
  };

  const guarded = async (c: C, next: Next): Promise<void> => {
    for (const check of checks) {
      // A check with nothing to do returns no promise: awaiting it anyway would cost a turn.
      const pending = check(c);
      if (pending) await pending;
    }
    await next();
    const after = c.get('afterRoute');
    if (after) await after();
  };

  const api = async (c: C, next: Next): Promise<void> => {
    const origin = c.req.header('origin');
    try {
      // CORS has nothing to do for a request without an Origin (a server, curl, a same-origin GET).
      const preflight = origin === undefined ? undefined : await cors.preflight(c, origin);
      if (preflight) {
        c.res = preflight;
        return;
      }
      await race(() => guarded(c, next), timedOut);
    } catch (err) {
      await answerError(c, err);
    }
    if (origin === undefined) return;
    try {
      await cors.answer(c, origin);
    } catch (err) {
      await answerError(c, err);
    }
  };

  const handle = async (c: C, next: Next): Promise<void> => {
    useTextResponses(c);
    const id = requestId();
    c.set('requestId', id);
    const path = c.req.path;
    const underV1 = path === '/v1' || path.startsWith('/v1/');
    await notAllowed(c, underV1 ? () => api(c, next) : next);
    const headers = c.res.headers;
    addSecurityHeaders(headers);
    headers.set('x-request-id', id);
  };
  const trace = options.trace;
  // Without tracing the middleware is `handle` itself: no wrapper to call.
  return trace ? (c, next) => trace(c, () => handle(c, next)) : handle;
}
