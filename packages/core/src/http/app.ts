import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { LatchkeyError } from '../errors.js';
import type { RandomSource } from '../ports/random.js';
import { cachingRouter } from './caching-router.js';
import { corsPolicy } from './cors.js';
import { deadlineRacer } from './deadline.js';
import type { HttpApp, HttpEnv, HttpVariables } from './env.js';
import { errorResponse } from './error-body.js';
import { type ApiKeys, apiKeyCheck, checkUrlText, jsonBodyReader, requestIds } from './middleware.js';
import { type PipelineOptions, requestPipeline } from './pipeline.js';
import { type RouteLookup, routeTable } from './route-table.js';
import { type HealthDetail, OPENAPI_ROUTE, registerSystemRoutes } from './system-routes.js';
import { validationError } from './validation-hook.js';

/**
 * What mounts routes: a capability (capability.ts) is one. latchkey.ts hands the list over, so
 * the HTTP layer names no capability.
 */
export interface RouteMount {
  readonly name: string;
  routes?(app: HttpApp, service: never): void;
}

/** What the HTTP layer reads of Apps (the apps service is one): the API-key check and CORS. */
export interface HttpApps extends ApiKeys {
  /** Every App (for preflights, which carry no key and so name no App). */
  list(): Promise<Array<HttpVariables['app']>>;
}

/** The ports and checks the `/v1` app is built from; latchkey.ts wires them. */
export interface HttpParts {
  random: RandomSource;
  /** Unix seconds. */
  now: () => number;
  apps: HttpApps;
  /** How long the union of the Apps' allowed origins is kept (the Apps' cache time). */
  appCacheSeconds: number;
  /** The last check before the route, over the route table: the per-route rate limits. */
  routeLimit: (route: RouteLookup) => PipelineOptions['checks'][number];
}

export interface HttpOptions {
  maxBodyBytes: number;
  /** A request still unanswered after this long gets 503 `request_timeout`. */
  requestTimeoutMs: number;
  version: string;
  onInternalError: (err: unknown, requestId: string) => void;
  /** Wraps each request (telemetry/http-spans.ts); left out when no tracer is configured. */
  trace?: PipelineOptions['trace'];
  /** What `/v1/health` reports beside `status` (the revocation channel's state). */
  health?: () => HealthDetail;
}

/**
 * The `/v1` app: the middleware chain, then each capability's routes in the list's order (the
 * order of the OpenAPI document). The API-key check and CORS read Apps, so `apps` is required.
 */
export function createHttpApp(
  parts: HttpParts,
  capabilities: readonly RouteMount[],
  services: Readonly<Record<string, unknown>>,
  options: HttpOptions,
): HttpApp {
  const app: HttpApp = new OpenAPIHono<HttpEnv>({
    router: cachingRouter(),
    defaultHook: async (result, c) => {
      if (!result.success)
        throw validationError(result.error, result.target, await validatedInput(c, result.target));
    },
  });

  const route = routeTable(app, [OPENAPI_ROUTE]);
  const onError = (thrown: Error, c: Context<HttpEnv>) => {
    const err =
      thrown instanceof HTTPException && thrown.cause instanceof LatchkeyError ? thrown.cause : thrown;
    if (err instanceof HTTPException && err.status === 400) {
      return errorResponse(c, new LatchkeyError('invalid_json', undefined, { cause: err }));
    }
    if (!(err instanceof LatchkeyError) || err.status >= 500)
      options.onInternalError(err, c.get('requestId') ?? '');
    return errorResponse(c, err);
  };
  // One middleware for what every request passes through (pipeline.ts says why and in what order).
  app.use(
    '*',
    requestPipeline({
      app,
      requestId: requestIds(parts.random),
      onError,
      // The work under way is not cancelled when the time is up, so the request may still take
      // effect: the error says so.
      race: deadlineRacer(options.requestTimeoutMs),
      timedOut,
      cors: corsPolicy({
        route,
        listApps: parts.apps.list,
        now: parts.now,
        cacheSeconds: parts.appCacheSeconds,
      }),
      checks: [
        checkUrlText,
        apiKeyCheck(parts.apps, route.isOpen, (method, path) => route(method, path)?.tokenInQuery === true),
        jsonBodyReader(options.maxBodyBytes, (method, path) => route(method, path)?.formBody === true),
        parts.routeLimit(route),
      ],
      trace: options.trace,
    }),
  );

  registerSystemRoutes(app, { version: options.version, health: options.health });
  for (const capability of capabilities) capability.routes?.(app, services[capability.name] as never);

  app.notFound((c) => errorResponse(c, new LatchkeyError('route_not_found')));
  app.onError(onError);
  return app;
}

async function validatedInput(c: Context<HttpEnv>, target: string): Promise<unknown> {
  if (target === 'json') return c.req.json().catch(() => undefined);
  if (target === 'query') return c.req.query();
  if (target === 'param') return c.req.param();
  return undefined;
}

// onError answers with the Latchkey error inside.
const timedOut = () => new HTTPException(503, { cause: new LatchkeyError('request_timeout') });
