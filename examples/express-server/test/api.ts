import { expect } from 'vitest';

/** A JSON call to a spawned server; `key` goes in as a Bearer token. */
export async function call(
  url: string,
  method: 'GET' | 'POST',
  route: string,
  options: { key?: string; body?: unknown } = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const headers: Record<string, string> = {};
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${url}${route}`, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await res.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${method} ${route} answered ${res.status} with a body that is not JSON: ${text}`);
  }
  return { status: res.status, body, headers: res.headers };
}

/** The documented error shape (docs/errors.md): exactly these four fields, request id as in the header. */
export function expectError(
  res: { status: number; body: Record<string, unknown>; headers: Headers },
  status: number,
  errorType: string,
): void {
  expect({ status: res.status, body: res.body }).toMatchObject({
    status: status,
    body: { status_code: status, error_type: errorType },
  });
  expect(Object.keys(res.body).sort()).toEqual(['error_message', 'error_type', 'request_id', 'status_code']);
  expect(res.body.request_id).toMatch(/^req_/);
  expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
  expect(typeof res.body.error_message).toBe('string');
  expect(res.body.error_message).not.toBe('');
}

/** A unique email address for one test. */
export const uniqueEmail = (label: string) =>
  `${label}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}@example.com`;
