import { createRoute, z } from '@hono/zod-openapi';
import type { HttpApp } from '../http/env.js';
import { errorResponses } from '../http/error-body.js';
import { jsonBody, jsonResponse } from '../http/openapi.js';
import { policy } from '../http/route-policy.js';
import {
  createPolicyRequestSchema,
  deletePolicyResponseSchema,
  listPoliciesQuerySchema,
  listPoliciesResponseSchema,
  listSignaturesQuerySchema,
  listSignaturesResponseSchema,
  policySchema,
  updatePolicyRequestSchema,
} from './schema.js';
import type { WalletPolicyService } from './service.js';

const secret = { ...policy({ key: 'secret' }), tags: ['wallet policies'] };
const policyIdParam = { params: z.object({ policy_id: z.string().min(1).max(100) }) };
const walletIdParam = { params: z.object({ wallet_id: z.string().min(1).max(100) }) };

const create = createRoute({
  ...secret,
  method: 'post',
  path: '/v1/wallets/policies',
  summary: "Create a policy on the App's wallets, or on one wallet",
  request: jsonBody(createPolicyRequestSchema),
  responses: { 200: jsonResponse('The policy', policySchema), ...errorResponses(403, 404, 409, 413, 415) },
});

const list = createRoute({
  ...secret,
  method: 'get',
  path: '/v1/wallets/policies',
  summary: "The App's wallet policies, a page at a time",
  request: { query: listPoliciesQuerySchema },
  responses: { 200: jsonResponse('A page of policies', listPoliciesResponseSchema), ...errorResponses(403) },
});

const get = createRoute({
  ...secret,
  method: 'get',
  path: '/v1/wallets/policies/{policy_id}',
  summary: 'Read a wallet policy',
  request: policyIdParam,
  responses: { 200: jsonResponse('The policy', policySchema), ...errorResponses(403, 404) },
});

const update = createRoute({
  ...secret,
  method: 'patch',
  path: '/v1/wallets/policies/{policy_id}',
  summary: "Change a policy's name or replace its rules",
  request: { ...policyIdParam, ...jsonBody(updatePolicyRequestSchema) },
  responses: { 200: jsonResponse('The policy', policySchema), ...errorResponses(403, 404, 413, 415) },
});

const remove = createRoute({
  ...secret,
  method: 'delete',
  path: '/v1/wallets/policies/{policy_id}',
  summary: 'Delete a wallet policy',
  request: policyIdParam,
  responses: { 200: jsonResponse('Deleted', deletePolicyResponseSchema), ...errorResponses(403, 404) },
});

const signatures = createRoute({
  ...secret,
  method: 'get',
  path: '/v1/wallets/{wallet_id}/signatures',
  summary: "The wallet's signing requests (allowed, refused, failed), newest first",
  request: { ...walletIdParam, query: listSignaturesQuerySchema },
  responses: {
    200: jsonResponse('A page of audit entries', listSignaturesResponseSchema),
    ...errorResponses(403, 404),
  },
});

/** Registered before the wallet routes, so `/v1/wallets/policies` is never read as a wallet id. */
export function registerWalletPolicyRoutes(app: HttpApp, policies: WalletPolicyService) {
  const appId = (c: { get(key: 'app'): { id: string } }) => c.get('app').id;
  app.openapi(create, async (c) => c.json(await policies.create(appId(c), c.req.valid('json')), 200));
  app.openapi(list, async (c) => c.json(await policies.list(appId(c), c.req.valid('query')), 200));
  app.openapi(get, async (c) => c.json(await policies.get(appId(c), c.req.valid('param').policy_id), 200));
  app.openapi(update, async (c) =>
    c.json(await policies.update(appId(c), c.req.valid('param').policy_id, c.req.valid('json')), 200),
  );
  app.openapi(remove, async (c) =>
    c.json(await policies.delete(appId(c), c.req.valid('param').policy_id), 200),
  );
  app.openapi(signatures, async (c) =>
    c.json(await policies.signatures(appId(c), c.req.valid('param').wallet_id, c.req.valid('query')), 200),
  );
}
