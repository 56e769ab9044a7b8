import { createRoute, z } from '@hono/zod-openapi';
import { channels } from '../contacts/channels.js';
import type { HttpApp } from '../http/env.js';
import { errorResponses } from '../http/error-body.js';
import { policy } from '../http/route-policy.js';
import {
  createUserRequestSchema,
  createUserResponseSchema,
  removedMethodResponseSchema,
  userIdSchema,
  userSchema,
} from './schema.js';
import type { UserService } from './service.js';

const createUser = createRoute({
  method: 'post',
  path: '/v1/auth/users',
  tags: ['users'],
  summary: 'Create a user with an optional email and phone number',
  ...policy({ key: 'secret' }),
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
  ...policy({ key: 'secret' }),
  request: { params: z.object({ user_id: userIdSchema }) },
  responses: {
    200: { description: 'The user', content: { 'application/json': { schema: userSchema } } },
    ...errorResponses(403, 404),
  },
});

const removeRoute = (path: string, param: 'phone_number_id' | 'email_id', what: string) =>
  createRoute({
    method: 'delete',
    path,
    tags: ['users'],
    summary: `Remove ${what} from its user`,
    ...policy({ key: 'secret' }),
    request: {
      params: z.object({ [param]: z.string().min(1).max(100) }) as z.ZodObject<
        Record<typeof param, z.ZodString>
      >,
    },
    responses: {
      200: {
        description: 'Removed',
        content: { 'application/json': { schema: removedMethodResponseSchema } },
      },
      ...errorResponses(403, 404),
    },
  });

const removePhone = removeRoute(
  '/v1/auth/users/phone_number/{phone_number_id}/delete',
  'phone_number_id',
  'a phone number',
);
const removeEmail = removeRoute('/v1/auth/users/emails/{email_id}/delete', 'email_id', 'an email address');

export function registerUserRoutes(app: HttpApp, users: UserService) {
  app.openapi(removePhone, async (c) =>
    c.json(
      await users.removeContact(c.get('app').id, channels.sms, c.req.valid('param').phone_number_id),
      200,
    ),
  );
  app.openapi(removeEmail, async (c) =>
    c.json(await users.removeContact(c.get('app').id, channels.email, c.req.valid('param').email_id), 200),
  );
  app.openapi(createUser, async (c) => c.json(await users.create(c.get('app').id, c.req.valid('json')), 200));
  app.openapi(getUser, async (c) =>
    c.json(await users.get(c.get('app').id, c.req.valid('param').user_id), 200),
  );
}
