import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { type ErrorType, errorCatalogue, LatchkeyError } from '../errors.js';
import type { HttpEnv } from './env.js';
import { textResponse } from './text-response.js';

export const errorBodySchema = z
  .object({
    status_code: z.int(),
    request_id: z.string(),
    error_type: z.enum(Object.keys(errorCatalogue) as [ErrorType, ...ErrorType[]]),
    error_message: z.string(),
    /** For 400s: the request field at fault, as a dotted path. */
    error_field: z.string().optional(),
    /** For `policy_violation`: the wallet policy and the rule in it that refused. */
    policy_rule: z.object({ policy_id: z.string(), rule_index: z.int(), rule_kind: z.string() }).optional(),
  })
  .openapi('Error');

export type ErrorBody = z.infer<typeof errorBodySchema>;

/** The documented error body of `e`: one shape for the HTTP app and every adapter. */
export function errorBody(e: LatchkeyError, requestId: string): ErrorBody {
  return {
    status_code: e.status,
    request_id: requestId,
    error_type: e.errorType,
    error_message: e.message,
    ...(e.field === undefined ? {} : { error_field: e.field }),
    ...(e.policyRule === undefined ? {} : { policy_rule: e.policyRule }),
  };
}

/** The documented error response for any thrown value; anything unexpected becomes a bare 500. */
export function errorResponse(c: Context<HttpEnv>, err: unknown): Response {
  const e =
    err instanceof LatchkeyError ? err : new LatchkeyError('internal_error', undefined, { cause: err });
  const body = errorBody(e, c.get('requestId') ?? '');
  c.set('errorType', e.errorType);
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  if (e.retryAfter !== undefined) headers['retry-after'] = String(Math.max(1, Math.ceil(e.retryAfter)));
  return textResponse(JSON.stringify(body), { status: e.status, headers });
}

/** OpenAPI response entries for the error statuses a route can give. */
export function errorResponses(...statuses: number[]) {
  const entries = [...new Set([400, 401, 429, 500, ...statuses])].sort();
  return Object.fromEntries(
    entries.map((status) => [
      status,
      { description: describe(status), content: { 'application/json': { schema: errorBodySchema } } },
    ]),
  );
}

// Every route's responses name the same few statuses: each description is made once.
const descriptions = new Map<number, string>();

const describe = (status: number) => {
  let description = descriptions.get(status);
  if (description === undefined) {
    const types = Object.entries(errorCatalogue)
      .filter(([, v]) => v.status === status)
      .map(([k]) => `\`${k}\``);
    description = types.length ? `Error: ${types.join(', ')}` : 'Error';
    descriptions.set(status, description);
  }
  return description;
};
