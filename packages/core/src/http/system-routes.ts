import { createRoute, z } from '@hono/zod-openapi';
import type { HttpApp } from './env.js';
import { errorResponses } from './error-body.js';
import { openSecurity, securitySchemes } from './security.js';

const health = createRoute({
  method: 'get',
  path: '/v1/health',
  tags: ['system'],
  summary: 'Liveness: answers while the process serves requests (no key needed)',
  security: openSecurity,
  responses: {
    200: {
      description: 'Serving',
      content: { 'application/json': { schema: z.object({ status: z.literal('ok') }).openapi('Health') } },
    },
    ...errorResponses(),
  },
});

export const OPENAPI_PATH = '/v1/openapi.json';

export function registerSystemRoutes(app: HttpApp, info: { version: string }) {
  app.openapi(health, (c) => c.json({ status: 'ok' as const }, 200));
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
