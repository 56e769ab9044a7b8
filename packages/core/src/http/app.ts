import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { AppService } from '../apps/service.js';
import { LatchkeyError } from '../errors.js';
import type { Kernel } from '../kernel.js';
import { registerUserRoutes } from '../users/routes.js';
import type { UserService } from '../users/service.js';
import type { HttpApp, HttpEnv } from './env.js';
import { errorResponse } from './error-body.js';
import { apiKeyMiddleware, jsonBodyMiddleware, requestIdMiddleware } from './middleware.js';
import { OPENAPI_PATH, registerSystemRoutes } from './system-routes.js';
import { validationError } from './validation-hook.js';

export interface HttpServices {
  apps: AppService;
  users: UserService;
}

export interface HttpOptions {
  maxBodyBytes: number;
  version: string;
}

/** Paths served without an API key. */
const OPEN_PATHS = new Set(['/v1/health', OPENAPI_PATH]);

export function createHttpApp(k: Kernel, services: HttpServices, options: HttpOptions): HttpApp {
  const app: HttpApp = new OpenAPIHono<HttpEnv>({
    defaultHook: async (result, c) => {
      if (!result.success)
        throw validationError(result.error, result.target, await validatedInput(c, result.target));
    },
  });

  app.use('*', requestIdMiddleware(k.random));
  app.use('/v1/*', apiKeyMiddleware(services.apps, OPEN_PATHS));
  app.use('/v1/*', jsonBodyMiddleware(options.maxBodyBytes));

  registerSystemRoutes(app, { version: options.version });
  registerUserRoutes(app, services.users);

  const allowedMethods = methodTable(app);
  app.notFound((c) => {
    const methods = allowedMethods(c.req.path);
    if (methods.length === 0) return errorResponse(c, new LatchkeyError('route_not_found'));
    const res = errorResponse(c, new LatchkeyError('method_not_allowed'));
    res.headers.set('allow', methods.join(', '));
    return res;
  });
  app.onError((err, c) => {
    if (err instanceof HTTPException && err.status === 400) {
      return errorResponse(c, new LatchkeyError('invalid_json', undefined, { cause: err }));
    }
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

/** For a path no route took: the methods that some route does serve it with (for 405). */
function methodTable(app: HttpApp): (path: string) => string[] {
  let table: Array<{ pattern: RegExp; method: string }> | undefined;
  return (path) => {
    table ??= app.routes
      .filter((r) => r.method !== 'ALL')
      .map((r) => ({
        method: r.method,
        pattern: new RegExp(`^${r.path.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/:[^/]+/g, '[^/]+')}$`),
      }));
    return [...new Set(table.filter((r) => r.pattern.test(path)).map((r) => r.method))];
  };
}
