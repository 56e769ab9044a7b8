import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { createLatchkey } from '@latchkey/core';
import { memoryStorage } from '@latchkey/memory';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { latchkeyRouter } from '../src/index.js';

const latchkey = createLatchkey({ storage: memoryStorage(), secret: 'x'.repeat(40) });
let keys: { secret_key: string; public_token: string };
let server: http.Server;
let port: number;

beforeAll(async () => {
  keys = await latchkey.apps.create({ name: 'Hostile requests' });
  const app = express();
  app.use(latchkeyRouter(latchkey));
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Sends bytes as they are on a fresh connection and reads the whole answer (the server closes). */
function rawExchange(text: string): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(text));
    let data = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk) => {
      data += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const split = data.indexOf('\r\n\r\n');
      const head = data.slice(0, split);
      let body = data.slice(split + 4);
      if (/transfer-encoding: chunked/i.test(head)) body = dechunk(body);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      resolve({ status, headers: head, body });
    });
  });
}

function dechunk(text: string): string {
  let out = '';
  let rest = text;
  for (;;) {
    const eol = rest.indexOf('\r\n');
    const size = Number.parseInt(rest.slice(0, eol), 16);
    if (!size) return out;
    out += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 4 + size);
  }
}

const expectDocumentedError = (res: { status: number; body: string }) => {
  expect(res.status, res.body).toBeGreaterThanOrEqual(400);
  expect(res.status, res.body).toBeLessThan(500);
  const body = JSON.parse(res.body);
  expect(body).toEqual({
    status_code: res.status,
    request_id: expect.stringMatching(/^req_/),
    error_type: expect.any(String),
    error_message: expect.any(String),
    ...(body.error_field ? { error_field: body.error_field } : {}),
  });
  expect(res.body).not.toMatch(/<html|<pre|\bat \/|node_modules/i);
  return body as { error_type: string };
};

describe('the Express adapter and hostile requests (issue 14 point 5)', () => {
  it.each(['a b', 'a%zz', 'u@evil', '[::1', 'a/b', ''])(
    'answers Host %j with a 4xx in the documented shape',
    async (host) => {
      for (const key of [null, keys.public_token]) {
        const auth = key ? `Authorization: Bearer ${key}\r\n` : '';
        const res = await rawExchange(
          `GET /v1/auth/users/user_x HTTP/1.1\r\nHost: ${host}\r\n${auth}Connection: close\r\n\r\n`,
        );
        const body = expectDocumentedError(res);
        expect(body.error_type).toMatch(/^(invalid_field|unauthorized)$/);
      }
    },
  );

  it.each(['TRACE', 'CONNECT'])(
    'answers the method %s with a 4xx in the documented shape',
    async (method) => {
      const target = method === 'CONNECT' ? '127.0.0.1:1' : '/v1/auth/users';
      const res = await rawExchange(
        `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${keys.secret_key}\r\nConnection: close\r\n\r\n`,
      );
      // Node answers CONNECT itself (no 'connect' listener: it closes the socket); TRACE is ours.
      if (method === 'CONNECT' && res.status === 0) return;
      expect(expectDocumentedError(res).error_type).toBe('method_not_allowed');
    },
  );
});

describe('an early 413 on a keep-alive connection (issue 14 point 6)', () => {
  it('leaves the connection usable, or closes it, so the next request in a pool still works', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const send = (body: string, chunked: boolean) =>
      new Promise<{ status: number; socketReused: boolean }>((resolve, reject) => {
        const req = http.request(
          {
            agent,
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/v1/auth/users',
            headers: {
              authorization: `Bearer ${keys.secret_key}`,
              'content-type': 'application/json',
              ...(chunked ? {} : { 'content-length': Buffer.byteLength(body) }),
            },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode ?? 0, socketReused: req.reusedSocket }));
          },
        );
        req.on('error', reject);
        if (chunked) {
          // Sent in pieces without a Content-Length: the core counts bytes as they come.
          const piece = 64 * 1024;
          for (let i = 0; i < body.length; i += piece) req.write(body.slice(i, i + piece));
          req.end();
        } else req.end(body);
      });
    const big = JSON.stringify({ pad: 'x'.repeat(2 * 1024 * 1024) });
    const small = () => JSON.stringify({ email: `k${Math.random().toString(36).slice(2)}@example.com` });
    const statuses: number[] = [];
    try {
      for (let i = 0; i < 8; i++) {
        const res = await send(i % 2 === 1 ? big : small(), i % 4 === 3);
        statuses.push(res.status);
      }
    } finally {
      agent.destroy();
    }
    expect(statuses).toEqual([200, 413, 200, 413, 200, 413, 200, 413]);
  });
});
