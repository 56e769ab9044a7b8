import { createRoute } from '@hono/zod-openapi';
import type { HttpApp } from '../http/env.js';
import { errorResponses } from '../http/error-body.js';
import { jsonBody, jsonResponse } from '../http/openapi.js';
import { policy } from '../http/route-policy.js';
import { walletBalanceRequestSchema, walletBalanceResponseSchema } from './schema.js';
import type { BalanceService } from './service.js';

const balance = createRoute({
  ...policy({ key: 'secret' }),
  tags: ['wallets'],
  method: 'post',
  path: '/v1/wallets/balance',
  summary: "A wallet's balance of a token, read from the chain",
  request: jsonBody(walletBalanceRequestSchema),
  responses: {
    200: jsonResponse('The balance', walletBalanceResponseSchema),
    ...errorResponses(403, 404, 413, 415, 502, 503, 504),
  },
});

export function registerBalanceRoutes(app: HttpApp, balances: BalanceService) {
  app.openapi(balance, async (c) => c.json(await balances.get(c.get('app').id, c.req.valid('json')), 200));
}
