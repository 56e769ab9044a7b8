import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LatchkeyError, type OutboundMessage } from '@latchkey/core';
import { httpSmsSender } from '@latchkey/senders';
import { afterEach, describe, expect, it } from 'vitest';

interface Hit {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((close) => close()));
});

/** A local HTTP endpoint that records each request and answers with `respond`. */
async function startEndpoint(respond: (hit: Hit, res: import('node:http').ServerResponse) => void) {
  const hits: Hit[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const hit = {
        method: req.method,
        url: req.url,
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      };
      hits.push(hit);
      respond(hit, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    for (const t of timers) clearTimeout(t);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: `${base}/sms`, base, hits, timers };
}

async function expectLatchkeyError(promise: Promise<unknown>, errorType: string) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LatchkeyError);
  expect((error as LatchkeyError).errorType).toBe(errorType);
  return error as LatchkeyError;
}

const otpSms: OutboundMessage = {
  channel: 'sms',
  to: '+14155550100',
  kind: 'otp',
  app_id: 'app_01',
  text: 'Your Acme code is 123456',
  code: '123456',
};

describe('httpSmsSender', () => {
  it('POSTs { to, text, app_id, kind } as JSON with the configured headers', async () => {
    const endpoint = await startEndpoint((_hit, res) => res.writeHead(204).end());
    const sender = httpSmsSender({
      url: endpoint.url,
      headers: { Authorization: 'Bearer gateway-token', 'X-Tenant': 'acme', 'Content-Type': 'text/plain' },
    });
    await sender.send(otpSms);

    expect(endpoint.hits).toHaveLength(1);
    const [hit] = endpoint.hits;
    expect(hit!.method).toBe('POST');
    expect(hit!.url).toBe('/sms');
    expect(hit!.headers.authorization).toBe('Bearer gateway-token');
    expect(hit!.headers['x-tenant']).toBe('acme');
    // The body is JSON whatever the caller's headers say.
    expect(hit!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(hit!.body)).toEqual({
      to: '+14155550100',
      text: 'Your Acme code is 123456',
      app_id: 'app_01',
      kind: 'otp',
    });
  });

  it('accepts any 2xx answer', async () => {
    const endpoint = await startEndpoint((_hit, res) =>
      res.writeHead(202, { 'content-type': 'application/json' }).end('{"id":"m1"}'),
    );
    await httpSmsSender({ url: endpoint.url }).send(otpSms);
    expect(endpoint.hits).toHaveLength(1);
  });

  it('maps a 500 answer to sender_unavailable (502)', async () => {
    const endpoint = await startEndpoint((_hit, res) => res.writeHead(500).end('gateway down'));
    const error = await expectLatchkeyError(
      httpSmsSender({ url: endpoint.url }).send(otpSms),
      'sender_unavailable',
    );
    expect(error.status).toBe(502);
    expect(String(error.cause)).toContain('500');
    expect(endpoint.hits).toHaveLength(1);
  });

  it('maps a 4xx answer to sender_unavailable', async () => {
    const endpoint = await startEndpoint((_hit, res) => res.writeHead(401).end());
    await expectLatchkeyError(httpSmsSender({ url: endpoint.url }).send(otpSms), 'sender_unavailable');
  });

  it('gives up after timeoutMs on a slow endpoint', async () => {
    const endpoint = await startEndpoint((_hit, res) => {
      endpoint.timers.add(setTimeout(() => res.writeHead(204).end(), 5_000));
    });
    const started = Date.now();
    const error = await expectLatchkeyError(
      httpSmsSender({ url: endpoint.url, timeoutMs: 200 }).send(otpSms),
      'sender_unavailable',
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    expect((error.cause as Error).name).toBe('TimeoutError');
  });

  it('maps an unreachable endpoint to sender_unavailable', async () => {
    const endpoint = await startEndpoint((_hit, res) => res.end());
    const url = endpoint.url;
    await Promise.all(cleanups.splice(0).map((close) => close()));
    await expectLatchkeyError(httpSmsSender({ url }).send(otpSms), 'sender_unavailable');
  });

  it('does not follow redirects (they could carry the gateway credentials elsewhere)', async () => {
    const target = await startEndpoint((_hit, res) => res.writeHead(204).end());
    const endpoint = await startEndpoint((_hit, res) => res.writeHead(307, { location: target.url }).end());
    await expectLatchkeyError(
      httpSmsSender({ url: endpoint.url, headers: { authorization: 'Bearer secret' } }).send(otpSms),
      'sender_unavailable',
    );
    expect(endpoint.hits).toHaveLength(1);
    expect(target.hits).toHaveLength(0);
  });

  it('refuses email messages without calling the endpoint', async () => {
    const endpoint = await startEndpoint((_hit, res) => res.writeHead(204).end());
    await expectLatchkeyError(
      httpSmsSender({ url: endpoint.url }).send({ ...otpSms, channel: 'email', to: 'ada@example.com' }),
      'internal_error',
    );
    expect(endpoint.hits).toHaveLength(0);
  });

  it('refuses to build with a URL that is not http(s) or a bad timeout', () => {
    for (const bad of [
      { url: 'ftp://example.com/sms' },
      { url: 'not a url' },
      { url: '' },
      { url: 'https://a.test', timeoutMs: 0 },
    ]) {
      expect(() => httpSmsSender(bad)).toThrow(LatchkeyError);
    }
  });
});
