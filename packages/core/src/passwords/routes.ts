import { createRoute } from '@hono/zod-openapi';
import type { HttpApp } from '../http/env.js';
import { errorResponses } from '../http/error-body.js';
import { jsonBody, jsonResponse } from '../http/openapi.js';
import { policy } from '../http/route-policy.js';
import { strengthCheckRequestSchema, strengthCheckResponseSchema } from './schema.js';
import type { PasswordService } from './service.js';

const strengthCheck = createRoute({
  method: 'post',
  path: '/v1/auth/passwords/strength_check',
  tags: ['passwords'],
  summary: 'Score a password with zxcvbn (user_id needs the secret key)',
  ...policy({ key: 'public', rate: 'compute', namedUser: ['user_id'] }),
  request: jsonBody(strengthCheckRequestSchema),
  responses: {
    200: jsonResponse('The score, crack time and feedback', strengthCheckResponseSchema),
    ...errorResponses(403, 404, 413, 415),
  },
});

export function registerPasswordRoutes(app: HttpApp, passwords: PasswordService) {
  app.openapi(strengthCheck, async (c) => {
    const input = c.req.valid('json');
    return c.json(await passwords.strengthCheck(c.get('app').id, input), 200);
  });
}
