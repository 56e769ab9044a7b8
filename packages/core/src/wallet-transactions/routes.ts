import { createRoute, z } from '@hono/zod-openapi';
import type { HttpApp } from '../http/env.js';
import { errorResponses } from '../http/error-body.js';
import { jsonBody, jsonResponse } from '../http/openapi.js';
import { policy } from '../http/route-policy.js';
import {
  listTransactionsQuerySchema,
  listTransactionsResponseSchema,
  replaceTransactionRequestSchema,
  sendTransactionRequestSchema,
  sendTransactionResponseSchema,
  walletTransactionSchema,
} from './schema.js';
import type { WalletTransactionService } from './service.js';

const secret = { ...policy({ key: 'secret' }), tags: ['wallet transactions'] };
const walletIdParam = { params: z.object({ wallet_id: z.string().min(1).max(100) }) };
const transactionParams = {
  params: z.object({ wallet_id: z.string().min(1).max(100), transaction_id: z.string().min(1).max(100) }),
};
// The chain's answers: 502 unavailable or malformed, 503 not configured, 504 timed out.
const chainErrors = [502, 503, 504] as const;

const send = createRoute({
  ...secret,
  method: 'post',
  path: '/v1/wallets/{wallet_id}/send_transaction',
  summary: 'Send a transaction: nonce, gas and fees filled, signed under the policies, broadcast',
  request: { ...walletIdParam, ...jsonBody(sendTransactionRequestSchema) },
  responses: {
    200: jsonResponse('The transaction, submitted', sendTransactionResponseSchema),
    ...errorResponses(403, 404, 409, 413, 415, ...chainErrors),
  },
});

const list = createRoute({
  ...secret,
  method: 'get',
  path: '/v1/wallets/{wallet_id}/transactions',
  summary: "The wallet's sent transactions, newest first",
  request: { ...walletIdParam, query: listTransactionsQuerySchema },
  responses: {
    200: jsonResponse('A page of transactions', listTransactionsResponseSchema),
    ...errorResponses(403, 404),
  },
});

const get = createRoute({
  ...secret,
  method: 'get',
  path: '/v1/wallets/{wallet_id}/transactions/{transaction_id}',
  summary: 'One sent transaction, its status read from the chain',
  request: transactionParams,
  responses: {
    200: jsonResponse('The transaction', walletTransactionSchema),
    ...errorResponses(403, 404, ...chainErrors),
  },
});

const replaceRoute = (action: 'speed_up' | 'cancel', summary: string) =>
  createRoute({
    ...secret,
    method: 'post',
    path: `/v1/wallets/{wallet_id}/transactions/{transaction_id}/${action}`,
    summary,
    request: { ...transactionParams, ...jsonBody(replaceTransactionRequestSchema) },
    responses: {
      200: jsonResponse('The replacement, submitted', sendTransactionResponseSchema),
      ...errorResponses(403, 404, 409, 413, 415, ...chainErrors),
    },
  });

const speedUp = replaceRoute('speed_up', 'Replace a submitted transaction by itself with higher fees');
const cancel = replaceRoute('cancel', 'Replace a submitted transaction by an empty one to the wallet itself');

export function registerWalletTransactionRoutes(app: HttpApp, transactions: WalletTransactionService) {
  app.openapi(send, async (c) =>
    c.json(
      await transactions.send(c.get('app').id, c.req.valid('param').wallet_id, c.req.valid('json'), {
        keyKind: c.get('keyKind'),
      }),
      200,
    ),
  );
  app.openapi(list, async (c) =>
    c.json(
      await transactions.list(c.get('app').id, c.req.valid('param').wallet_id, c.req.valid('query')),
      200,
    ),
  );
  app.openapi(get, async (c) => {
    const { wallet_id, transaction_id } = c.req.valid('param');
    return c.json(await transactions.get(c.get('app').id, wallet_id, transaction_id), 200);
  });
  app.openapi(speedUp, async (c) => {
    const { wallet_id, transaction_id } = c.req.valid('param');
    return c.json(
      await transactions.speedUp(c.get('app').id, wallet_id, transaction_id, c.req.valid('json'), {
        keyKind: c.get('keyKind'),
      }),
      200,
    );
  });
  app.openapi(cancel, async (c) => {
    const { wallet_id, transaction_id } = c.req.valid('param');
    return c.json(
      await transactions.cancel(c.get('app').id, wallet_id, transaction_id, c.req.valid('json'), {
        keyKind: c.get('keyKind'),
      }),
      200,
    );
  });
}
