import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { webRequest } from '../src/node-http/web-request.js';

/** Runs `inspect` on the Web view of one real Node request, and answers with what it returns. */
async function viewOf(
  init: RequestInit & { path?: string },
  inspect: (request: Request, req: IncomingMessage) => Promise<unknown>,
  parsedBody?: string,
): Promise<unknown> {
  const server = createServer((req, res) => {
    const request = webRequest(req, `http://example.test${req.url}`, parsedBody);
    if (parsedBody !== undefined) req.resume();
    inspect(request, req).then(
      (value) => res.end(JSON.stringify({ value })),
      (err: Error) => res.end(JSON.stringify({ error: err.message })),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    const res = await fetch(`http://127.0.0.1:${port}${init.path ?? '/v1/x?a=1'}`, init);
    return ((await res.json()) as { value: unknown }).value;
  } finally {
    server.close();
  }
}

describe('webRequest: a Web Request view of a Node request', () => {
  it('gives the method, URL and headers', async () => {
    const seen = await viewOf({ headers: { 'x-one': 'a', authorization: 'Bearer k' } }, async (r) => ({
      method: r.method,
      url: r.url,
      one: r.headers.get('x-one'),
      auth: r.headers.get('authorization'),
      isRequest: r instanceof Request,
    }));
    expect(seen).toEqual({
      method: 'GET',
      url: 'http://example.test/v1/x?a=1',
      one: 'a',
      auth: 'Bearer k',
      isRequest: true,
    });
  });

  it('streams the body', async () => {
    const body = JSON.stringify({ big: 'x'.repeat(100_000) });
    const seen = await viewOf({ method: 'POST', body }, (r) => new Response(r.body).text());
    expect(seen).toBe(body);
  });

  it('answers every other member from a real Request built from the same parts', async () => {
    const body = '{"a":1}';
    const seen = await viewOf({ method: 'POST', body, headers: { 'x-one': 'a' } }, async (r) => {
      const copy = r.clone();
      return {
        text: await r.text(),
        copied: await copy.json(),
        header: copy.headers.get('x-one'),
        signal: r.signal instanceof AbortSignal,
        used: r.bodyUsed,
      };
    });
    expect(seen).toEqual({ text: body, copied: { a: 1 }, header: 'a', signal: true, used: true });
  });

  it('passes a body a host parser already read as text, without its framing headers', async () => {
    const seen = await viewOf(
      { method: 'POST', body: 'ignored on the wire' },
      async (r) => ({ text: await new Response(r.body).text(), length: r.headers.get('content-length') }),
      '{"parsed":true}',
    );
    expect(seen).toEqual({ text: '{"parsed":true}', length: null });
  });

  it('answers header lookups as a copied Headers would, before and after a copy is made', async () => {
    const seen = await viewOf(
      {
        method: 'POST',
        headers: { 'x-one': 'a', cookie: 'a=1', 'content-type': 'application/json' },
        body: '{}',
      },
      async (r) => {
        const h = r.headers;
        const before = {
          one: h.get('X-One'),
          missing: h.get('x-missing'),
          hasOne: h.has('x-one'),
          // A host parser read the body: its framing headers are gone from the view.
          length: h.get('content-length'),
          hasLength: h.has('content-length'),
        };
        let invalid = '';
        try {
          h.get('not a name');
        } catch (err) {
          invalid = (err as Error).name;
        }
        h.set('x-two', 'b');
        const after = { one: h.get('x-one'), two: h.get('x-two'), all: [...h].map(([k]) => k) };
        // The real Request, built on demand, carries the same headers.
        const real = new Request(r.url, { method: 'POST', headers: h, body: '{}' });
        return { before, invalid, after, real: real.headers.get('x-two'), instance: h instanceof Headers };
      },
      '{}',
    );
    expect(seen).toEqual({
      before: { one: 'a', missing: null, hasOne: true, length: null, hasLength: false },
      invalid: 'TypeError',
      after: {
        one: 'a',
        two: 'b',
        all: expect.arrayContaining(['content-type', 'cookie', 'host', 'x-one', 'x-two']),
      },
      real: 'b',
      instance: true,
    });
    expect((seen as { after: { all: string[] } }).after.all).not.toContain('content-length');
  });

  it('answers as the real Headers for values a host middleware wrote in, and never from the prototype', async () => {
    const names = ['x-num', 'x-upper', 'X-Upper', 'x-ws', 'constructor', '__proto__', 'toString', 'x-one'];
    const seen = await viewOf({ headers: { 'x-one': 'a' } }, async (r, req) => {
      const written = req.headers as Record<string, unknown>;
      written['x-num'] = 42;
      written['X-Upper'] = 'up';
      written['x-ws'] = '  padded  ';
      // The oracle: an undici Headers filled from the same object, as the view's copy is.
      const real = new Headers();
      for (const [name, value] of Object.entries(written)) real.append(name, String(value));
      return names.map((name) => ({
        name,
        view: [r.headers.get(name), r.headers.has(name)],
        real: [real.get(name), real.has(name)],
      }));
    });
    for (const { name, view, real } of seen as Array<{ name: string; view: unknown; real: unknown }>)
      expect(view, name).toEqual(real);
  });
});
