import { createRoute } from '@hono/zod-openapi';
import type { HttpApp } from '../http/env.js';
import { errorResponses } from '../http/error-body.js';
import { jsonBody, jsonResponse } from '../http/openapi.js';
import { policy } from '../http/route-policy.js';
import {
  verifyWalletRequestSchema,
  verifyWalletResponseSchema,
  walletChallengeRequestSchema,
  walletChallengeResponseSchema,
} from './schema.js';
import type { WalletAuthService } from './service.js';

const challenge = createRoute({
  method: 'post',
  path: '/v1/auth/wallets/challenge',
  tags: ['wallet sign-in'],
  summary: 'A single-use sign-in message for a wallet to sign (user_id needs the secret key) (beta)',
  ...policy({ key: 'public', rate: 'send', namedUser: ['user_id'] }),
  request: jsonBody(walletChallengeRequestSchema),
  responses: {
    200: jsonResponse('The message to sign', walletChallengeResponseSchema),
    ...errorResponses(403, 404, 413, 415),
  },
});

const verify = createRoute({
  method: 'post',
  path: '/v1/auth/wallets/verify',
  tags: ['wallet sign-in'],
  summary: "Verify a wallet's signature over its challenge; optionally create or extend a session (beta)",
  ...policy({ key: 'public', rate: 'verify' }),
  request: jsonBody(verifyWalletRequestSchema),
  responses: {
    200: jsonResponse('The wallet, its user and the session', verifyWalletResponseSchema),
    ...errorResponses(409, 413, 415),
  },
});

export function registerWalletAuthRoutes(app: HttpApp, walletAuth: WalletAuthService) {
  app.openapi(challenge, async (c) => {
    const input = c.req.valid('json');
    return c.json(await walletAuth.challenge(c.get('app').id, input), 200);
  });
  app.openapi(verify, async (c) =>
    c.json(await walletAuth.verify(c.get('app').id, c.req.valid('json')), 200),
  );
}
