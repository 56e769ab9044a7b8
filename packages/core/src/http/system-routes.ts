import { createRoute, z } from '@hono/zod-openapi';
import type { HttpApp } from './env.js';
import { errorResponses } from './error-body.js';
import { policy } from './route-policy.js';
import type { UndocumentedRoute } from './route-table.js';
import { securitySchemes } from './security.js';

const healthSchema = z
  .object({
    status: z.literal('ok'),
    session_revocations: z.enum(['off', 'idle', 'starting', 'live', 'lost']).optional().openapi({
      description:
        'Whether this process hears of revoked sessions at once (`live`); `lost`: its channel is down and jwt-mode checks read the database until it is back; `idle`: not needed yet; `off`: the storage keeps no record, so a JWT lives until it expires.',
    }),
  })
  .openapi('Health');

export type HealthDetail = Omit<z.infer<typeof healthSchema>, 'status'>;

const health = createRoute({
  ...policy({ key: 'open' }),
  method: 'get',
  path: '/v1/health',
  tags: ['system'],
  summary: 'Liveness: answers while the process serves requests (no key needed)',
  responses: {
    200: {
      description: 'Serving',
      content: { 'application/json': { schema: healthSchema } },
    },
    ...errorResponses(),
  },
});

export const OPENAPI_PATH = '/v1/openapi.json';
/** The document itself is served by `doc31`, outside the registry: its policy is declared here. */
export const OPENAPI_ROUTE: UndocumentedRoute = {
  method: 'get',
  path: OPENAPI_PATH,
  policy: { key: 'open' },
};

export function registerSystemRoutes(
  app: HttpApp,
  info: { version: string; health?: (() => HealthDetail) | undefined },
) {
  app.openapi(health, (c) => c.json({ status: 'ok' as const, ...info.health?.() }, 200));
  for (const [name, scheme] of Object.entries(securitySchemes)) {
    app.openAPIRegistry.registerComponent('securitySchemes', name, { ...scheme });
  }
  app.doc31(OPENAPI_PATH, {
    openapi: '3.1.0',
    info: {
      title: 'Latchkey',
      version: info.version,
      description:
        'Authentication and embedded wallets. Every error has the body of the `Error` schema; ' +
        'error types are listed in docs/errors.md.',
    },
  });
}
