import { createRoute, z } from '@hono/zod-openapi';
import type { HttpApp } from '../http/env.js';
import { errorResponses } from '../http/error-body.js';
import { requireSecretKey } from '../http/middleware.js';
import { secretKeySecurity } from '../http/security.js';
import { createUserRequestSchema, createUserResponseSchema, userIdSchema, userSchema } from './schema.js';
import type { UserService } from './service.js';

const createUser = createRoute({
  method: 'post',
  path: '/v1/auth/users',
  tags: ['users'],
  summary: 'Create a user with an optional email and phone number',
  security: secretKeySecurity,
  middleware: [requireSecretKey] as const,
  request: { body: { required: true, content: { 'application/json': { schema: createUserRequestSchema } } } },
  responses: {
    200: {
      description: 'The new user',
      content: { 'application/json': { schema: createUserResponseSchema } },
    },
    ...errorResponses(403, 409, 413, 415),
  },
});

const getUser = createRoute({
  method: 'get',
  path: '/v1/auth/users/{user_id}',
  tags: ['users'],
  summary: 'Read a user with every login method and wallet they have',
  security: secretKeySecurity,
  middleware: [requireSecretKey] as const,
  request: { params: z.object({ user_id: userIdSchema }) },
  responses: {
    200: { description: 'The user', content: { 'application/json': { schema: userSchema } } },
    ...errorResponses(403, 404),
  },
});

export function registerUserRoutes(app: HttpApp, users: UserService) {
  app.openapi(createUser, async (c) => c.json(await users.create(c.get('app').id, c.req.valid('json')), 200));
  app.openapi(getUser, async (c) =>
    c.json(await users.get(c.get('app').id, c.req.valid('param').user_id), 200),
  );
}
