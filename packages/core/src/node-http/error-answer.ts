import type { ServerResponse } from 'node:http';
import { newRequestId } from '../crypto/ids.js';
import { systemRandom } from '../ports/random.js';

/**
 * Answers in Latchkey's documented error shape from the adapter itself, for what never reaches
 * the core (a request Node accepted but a Web Request cannot express, a host body parser's error).
 */
export function answerError(
  res: ServerResponse,
  status: number,
  error_type: string,
  error_message: string,
  extra: { error_field?: string; close?: boolean } = {},
): void {
  const request_id = newRequestId(systemRandom);
  const body = JSON.stringify({
    status_code: status,
    request_id,
    error_type,
    error_message,
    ...(extra.error_field ? { error_field: extra.error_field } : {}),
  });
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'x-request-id': request_id,
    ...(extra.close ? { connection: 'close' } : {}),
  });
  res.end(body);
}
