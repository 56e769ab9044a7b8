import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { methodNotAllowed } from 'hono/method-not-allowed';
import { timeout } from 'hono/timeout';
import type { DefaultCapabilities } from '../capabilities.js';
import type { AnyCapability, ServicesOf } from '../capability.js';
import { LatchkeyError } from '../errors.js';
import { APP_CACHE_SECONDS, type Kernel } from '../kernel.js';
import { routeLimitMiddleware } from '../rate-limits/route-limits.js';
import { corsMiddleware } from './cors.js';
import type { HttpApp, HttpEnv } from './env.js';
import { errorResponse } from './error-body.js';
import {
  apiKeyMiddleware,
  jsonBodyMiddleware,
  requestIdMiddleware,
  urlTextMiddleware,
} from './middleware.js';
import { routeTable } from './route-table.js';
import { securityHeadersMiddleware } from './security-headers.js';
import { OPENAPI_ROUTE, registerSystemRoutes } from './system-routes.js';
import { useTextResponses } from './text-response.js';
import { validationError } from './validation-hook.js';

/** The services whose routes the app mounts: one per capability of the list, under its name. */
export type HttpServices<C extends readonly AnyCapability[] = DefaultCapabilities> = ServicesOf<C>;

export interface HttpOptions {
  maxBodyBytes: number;
  /** A request still unanswered after this long gets 503 `request_timeout`. */
  requestTimeoutMs: number;
  version: string;
  onInternalError: (err: unknown, requestId: string) => void;
}

/**
 * The `/v1` app: the middleware chain, then each capability's routes in the list's order (the
 * order of the OpenAPI document). The API-key check and CORS read Apps, so `apps` is required.
 */
export function createHttpApp<C extends readonly AnyCapability[]>(
  k: Kernel,
  capabilities: C,
  services: HttpServices<C> & Pick<HttpServices, 'apps'>,
  options: HttpOptions,
): HttpApp {
  const app: HttpApp = new OpenAPIHono<HttpEnv>({
    defaultHook: async (result, c) => {
      if (!result.success)
        throw validationError(result.error, result.target, await validatedInput(c, result.target));
    },
  });

  const route = routeTable(app, [OPENAPI_ROUTE]);
  app.use('*', async (c, next) => {
    useTextResponses(c);
    return next();
  });
  app.use('*', requestIdMiddleware(k.random));
  app.use('*', securityHeadersMiddleware);
  // Inside the request id and headers, so its answer carries both: turns the not-found answer for a known path into a 405.
  app.use(
    '*',
    methodNotAllowed({
      app,
      onMethodNotAllowed: (c, methods) => {
        const res = errorResponse(c, new LatchkeyError('method_not_allowed'));
        res.headers.set('allow', methods.join(', '));
        return res;
      },
    }),
  );
  app.use(
    '/v1/*',
    corsMiddleware({ route, listApps: services.apps.list, now: k.now, cacheSeconds: APP_CACHE_SECONDS }),
  );
  // Hono's timeout rejects with an HTTPException; onError answers with the Latchkey error inside.
  // The work under way is not cancelled, so the request may still take effect: the error says so.
  app.use('/v1/*', timeout(options.requestTimeoutMs, timedOut));
  app.use('/v1/*', urlTextMiddleware);
  app.use('/v1/*', apiKeyMiddleware(services.apps, route.isOpen));
  app.use('/v1/*', jsonBodyMiddleware(options.maxBodyBytes));
  app.use('/v1/*', routeLimitMiddleware(k.rateLimiter, route));

  registerSystemRoutes(app, { version: options.version });
  const byName = services as Record<string, unknown>;
  for (const capability of capabilities) capability.routes?.(app, byName[capability.name] as never);

  app.notFound((c) => errorResponse(c, new LatchkeyError('route_not_found')));
  app.onError((thrown, c) => {
    const err =
      thrown instanceof HTTPException && thrown.cause instanceof LatchkeyError ? thrown.cause : thrown;
    if (err instanceof HTTPException && err.status === 400) {
      return errorResponse(c, new LatchkeyError('invalid_json', undefined, { cause: err }));
    }
    if (!(err instanceof LatchkeyError) || err.status >= 500)
      options.onInternalError(err, c.get('requestId') ?? '');
    return errorResponse(c, err);
  });
  return app;
}

async function validatedInput(c: Context<HttpEnv>, target: string): Promise<unknown> {
  if (target === 'json') return c.req.json().catch(() => undefined);
  if (target === 'query') return c.req.query();
  if (target === 'param') return c.req.param();
  return undefined;
}

const timedOut = () => new HTTPException(503, { cause: new LatchkeyError('request_timeout') });
