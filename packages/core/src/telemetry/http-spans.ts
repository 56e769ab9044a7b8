import type { Context } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { HttpEnv } from '../http/env.js';
import { failed } from './in-span.js';
import { SPAN_KIND, SPAN_STATUS_ERROR, type TelemetryTracer } from './tracer.js';

type C = Context<HttpEnv>;

/** Wraps one request's handling: what the request pipeline calls around everything it does. */
export type RequestTrace = (c: C, handle: () => Promise<void>) => Promise<void>;

// The methods OpenTelemetry's HTTP conventions name; any other is recorded as `_OTHER`.
const KNOWN_METHODS = new Set([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'CONNECT',
  'OPTIONS',
  'TRACE',
  'PATCH',
]);

/**
 * A server span per request, named and described by OpenTelemetry's HTTP conventions:
 * `http.request.method`, `http.route` (the route's template, `/v1/users/:user_id`: the raw path
 * may hold ids and the query tokens, so neither `url.path` nor `url.query` is recorded),
 * `url.scheme`, `http.response.status_code`, `error.type` (the answer's `error_type`), and
 * Latchkey's own `latchkey.request_id` and `latchkey.app_id`. 5xx answers set the error status.
 */
export function requestSpans(tracer: TelemetryTracer): RequestTrace {
  return (c, handle) => {
    const raw = c.req.method;
    const method = KNOWN_METHODS.has(raw) ? raw : '_OTHER';
    const route = routeTemplate(c);
    const attributes: Record<string, string> = {
      'http.request.method': method,
      'url.scheme': c.req.url.startsWith('https:') ? 'https' : 'http',
    };
    if (method !== raw) attributes['http.request.method_original'] = raw;
    if (route !== undefined) attributes['http.route'] = route;
    const name = route === undefined ? method : `${method} ${route}`;
    return tracer.startActiveSpan(name, { kind: SPAN_KIND.server, attributes }, async (span) => {
      try {
        await handle();
        const status = c.res.status;
        span.setAttribute('http.response.status_code', status);
        const errorType = c.get('errorType');
        if (errorType !== undefined) span.setAttribute('error.type', errorType);
        if (status >= 500) span.setStatus({ code: SPAN_STATUS_ERROR, message: errorType ?? String(status) });
      } catch (err) {
        failed(span, err);
        throw err;
      } finally {
        const requestId = c.get('requestId');
        if (requestId !== undefined) span.setAttribute('latchkey.request_id', requestId);
        const app = c.get('app');
        if (app !== undefined) span.setAttribute('latchkey.app_id', app.id);
        span.end();
      }
    });
  };
}

/**
 * The template of the route the router matched (known before the handlers run), or undefined
 * when only the catch-all middleware matched: a 404 or 405 has no route.
 */
function routeTemplate(c: C): string | undefined {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    const path = routes[i]?.path;
    if (path !== undefined && !path.includes('*')) return path;
  }
  return undefined;
}
