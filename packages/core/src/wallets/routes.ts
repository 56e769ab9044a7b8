import { createRoute, z } from '@hono/zod-openapi';
import type { HttpApp } from '../http/env.js';
import { errorResponses } from '../http/error-body.js';
import { jsonBody, jsonResponse } from '../http/openapi.js';
import { policy } from '../http/route-policy.js';
import {
  createWalletRequestSchema,
  exportWalletRequestSchema,
  exportWalletResponseSchema,
  importWalletRequestSchema,
  listWalletsQuerySchema,
  listWalletsResponseSchema,
  signMessageRequestSchema,
  signMessageResponseSchema,
  signTransactionRequestSchema,
  signTransactionResponseSchema,
  signTypedDataRequestSchema,
  signTypedDataResponseSchema,
  walletSchema,
} from './schema.js';
import type { WalletService } from './service.js';

const secret = { ...policy({ key: 'secret' }), tags: ['wallets'] };
const walletIdParam = { params: z.object({ wallet_id: z.string().min(1).max(100) }) };

const create = createRoute({
  ...secret,
  method: 'post',
  path: '/v1/wallets/create',
  summary: "The user's default wallet of a type, created when absent",
  request: jsonBody(createWalletRequestSchema),
  responses: { 200: jsonResponse('The wallet', walletSchema), ...errorResponses(403, 404, 413, 415) },
});

const list = createRoute({
  ...secret,
  method: 'get',
  path: '/v1/wallets/list',
  summary: "The App's wallets, or one user's, a page at a time",
  request: { query: listWalletsQuerySchema },
  responses: { 200: jsonResponse('A page of wallets', listWalletsResponseSchema), ...errorResponses(403) },
});

const importWallet = createRoute({
  ...secret,
  method: 'post',
  path: '/v1/wallets/import',
  summary: 'Import a wallet from a mnemonic or a private key',
  request: jsonBody(importWalletRequestSchema),
  responses: {
    200: jsonResponse('The imported wallet', walletSchema),
    ...errorResponses(403, 404, 409, 413, 415),
  },
});

const exportWallet = createRoute({
  ...secret,
  method: 'post',
  path: '/v1/wallets/{wallet_id}/export',
  summary: "The wallet's private key, encrypted to the caller's public key",
  request: { ...walletIdParam, ...jsonBody(exportWalletRequestSchema) },
  responses: {
    200: jsonResponse('The encrypted key', exportWalletResponseSchema),
    ...errorResponses(403, 404, 413, 415),
  },
});

const signTransaction = createRoute({
  ...secret,
  method: 'post',
  path: '/v1/wallets/{wallet_id}/sign_transaction',
  summary: "Sign a transaction of the wallet's chain: Solana, EVM, a bitcoin PSBT or a Stellar envelope",
  request: { ...walletIdParam, ...jsonBody(signTransactionRequestSchema) },
  responses: {
    200: jsonResponse('The signed transaction', signTransactionResponseSchema),
    ...errorResponses(403, 404, 413, 415),
  },
});

const signMessage = createRoute({
  ...secret,
  method: 'post',
  path: '/v1/wallets/{wallet_id}/sign_message',
  summary: 'Sign a message as wallet apps of the chain do (EIP-191, ed25519, sr25519, SEP-53, BIP-322)',
  request: { ...walletIdParam, ...jsonBody(signMessageRequestSchema) },
  responses: {
    200: jsonResponse('The signature', signMessageResponseSchema),
    ...errorResponses(403, 404, 413, 415),
  },
});

const signTypedData = createRoute({
  ...secret,
  method: 'post',
  path: '/v1/wallets/{wallet_id}/sign_typed_data',
  summary: 'Sign EIP-712 typed data (v4) with an ethereum wallet',
  request: { ...walletIdParam, ...jsonBody(signTypedDataRequestSchema) },
  responses: {
    200: jsonResponse('The signature', signTypedDataResponseSchema),
    ...errorResponses(403, 404, 413, 415),
  },
});

export function registerWalletRoutes(app: HttpApp, wallets: WalletService) {
  app.openapi(create, async (c) => c.json(await wallets.create(c.get('app').id, c.req.valid('json')), 200));
  app.openapi(list, async (c) => c.json(await wallets.list(c.get('app').id, c.req.valid('query')), 200));
  app.openapi(importWallet, async (c) =>
    c.json(await wallets.import(c.get('app').id, c.req.valid('json')), 200),
  );
  app.openapi(exportWallet, async (c) =>
    c.json(
      await wallets.export(
        c.get('app').id,
        c.req.valid('param').wallet_id,
        c.req.valid('json').recipient_public_key,
      ),
      200,
    ),
  );
  app.openapi(signTransaction, async (c) =>
    c.json(
      await wallets.signTransaction(c.get('app').id, c.req.valid('param').wallet_id, c.req.valid('json'), {
        keyKind: c.get('keyKind'),
      }),
      200,
    ),
  );
  app.openapi(signMessage, async (c) =>
    c.json(
      await wallets.signMessage(c.get('app').id, c.req.valid('param').wallet_id, c.req.valid('json'), {
        keyKind: c.get('keyKind'),
      }),
      200,
    ),
  );
  app.openapi(signTypedData, async (c) =>
    c.json(
      await wallets.signTypedData(c.get('app').id, c.req.valid('param').wallet_id, c.req.valid('json'), {
        keyKind: c.get('keyKind'),
      }),
      200,
    ),
  );
}
