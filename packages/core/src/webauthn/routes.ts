import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { HttpApp, HttpEnv } from '../http/env.js';
import { errorResponses } from '../http/error-body.js';
import { jsonBody, jsonResponse } from '../http/openapi.js';
import { policy } from '../http/route-policy.js';
import { removedMethodResponseSchema } from '../users/schema.js';
import {
  authenticationBeginRequestSchema,
  authenticationBeginResponseSchema,
  authenticationCompleteRequestSchema,
  authenticationCompleteResponseSchema,
  registrationBeginRequestSchema,
  registrationBeginResponseSchema,
  registrationCreateRequestSchema,
  registrationCreateResponseSchema,
} from './schema.js';
import type { WebAuthnService } from './service.js';

const tags = ['webauthn'];

const registrantDescription =
  "With the secret key, `user_id` names the user. With the public token, the body carries exactly one of the user's live `session_token` or `session_jwt` and no `user_id` (naming a user needs the secret key: 403 `secret_key_required`); the credential goes to that session's user, and a revoked or expired session is refused (401 `session_not_found`), and so is one that has proven no factor within the App's `sessions.step_up_minutes` (401 `step_up_required`: sign in again on that session, then retry).";

const registrationBegin = createRoute({
  tags,
  method: 'post',
  path: '/v1/auth/webauthn/registrations/begin',
  summary: 'Start registering a WebAuthn credential (passkey) for a user: creation options (beta)',
  description: registrantDescription,
  ...policy({ key: 'public', rate: 'send', namedUser: ['user_id'] }),
  request: jsonBody(registrationBeginRequestSchema),
  responses: {
    200: jsonResponse('Options for navigator.credentials.create()', registrationBeginResponseSchema),
    ...errorResponses(403, 404, 413, 415),
  },
});

const registrationCreate = createRoute({
  tags,
  method: 'post',
  path: '/v1/auth/webauthn/registrations/create',
  summary: "Verify the browser's new credential against its challenge and store it (beta)",
  description: registrantDescription,
  ...policy({ key: 'public', rate: 'verify', namedUser: ['user_id'] }),
  request: jsonBody(registrationCreateRequestSchema),
  responses: {
    200: jsonResponse('The stored credential', registrationCreateResponseSchema),
    ...errorResponses(403, 404, 409, 413, 415),
  },
});

const authenticationBegin = createRoute({
  tags,
  method: 'post',
  path: '/v1/auth/webauthn/authentications/begin',
  summary: "Start a WebAuthn sign-in: request options, for one user's credentials or any passkey",
  description:
    'Accepts the public token for a discoverable sign-in (no `user_id`); naming a `user_id` needs the secret key.',
  ...policy({ key: 'public', rate: 'send', namedUser: ['user_id'] }),
  request: jsonBody(authenticationBeginRequestSchema),
  responses: {
    200: jsonResponse('Options for navigator.credentials.get()', authenticationBeginResponseSchema),
    ...errorResponses(403, 404, 413, 415),
  },
});

const authenticationComplete = createRoute({
  tags,
  method: 'post',
  path: '/v1/auth/webauthn/authentications/complete',
  summary: 'Verify a signed WebAuthn assertion; optionally create or extend a session',
  ...policy({ key: 'public', rate: 'verify' }),
  request: jsonBody(authenticationCompleteRequestSchema),
  responses: {
    200: jsonResponse('The user signed in, and the session', authenticationCompleteResponseSchema),
    ...errorResponses(413, 415),
  },
});

const remove = createRoute({
  ...policy({ key: 'secret' }),
  tags,
  method: 'delete',
  path: '/v1/auth/users/webauthn_credentials/{webauthn_credential_id}/delete',
  summary: 'Delete a WebAuthn credential from its user',
  request: { params: z.object({ webauthn_credential_id: z.string().min(1).max(100) }) },
  responses: { 200: jsonResponse('Deleted', removedMethodResponseSchema), ...errorResponses(403, 404) },
});

export function registerWebAuthnRoutes(app: HttpApp, webauthn: WebAuthnService) {
  app.openapi(registrationBegin, async (c) => {
    const { appId, userId, rest } = await registrant(webauthn, c, c.req.valid('json'));
    return c.json(await webauthn.beginRegistration(appId, { ...rest, user_id: userId }), 200);
  });
  app.openapi(registrationCreate, async (c) => {
    const { appId, userId, rest } = await registrant(webauthn, c, c.req.valid('json'));
    return c.json(await webauthn.createRegistration(appId, { ...rest, user_id: userId }), 200);
  });
  app.openapi(authenticationBegin, async (c) => {
    const input = c.req.valid('json');
    return c.json(await webauthn.beginAuthentication(c.get('app').id, input), 200);
  });
  app.openapi(authenticationComplete, async (c) =>
    c.json(await webauthn.completeAuthentication(c.get('app').id, c.req.valid('json')), 200),
  );
  app.openapi(remove, async (c) =>
    c.json(
      await webauthn.deleteCredential(c.get('app').id, c.req.valid('param').webauthn_credential_id),
      200,
    ),
  );
}

/**
 * The user a registration is for: the named `user_id` with the secret key, the live session's
 * user with the public token. The rest of the body goes on to the service.
 */
async function registrant<T extends { user_id?: string; session_token?: string; session_jwt?: string }>(
  webauthn: WebAuthnService,
  c: Context<HttpEnv>,
  body: T,
) {
  const { user_id, session_token, session_jwt, ...rest } = body;
  const appId = c.get('app').id;
  const userId = await webauthn.registrantUserId(appId, c.get('keyKind'), {
    user_id,
    session_token,
    session_jwt,
  });
  return { appId, userId, rest };
}
