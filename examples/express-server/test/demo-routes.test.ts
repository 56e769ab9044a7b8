import { chmod, mkdir, stat } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_RATE_LIMIT } from '../src/demo-rate-limit.js';
import { expectError } from './api.js';
import { type StorageTarget, storageTarget } from './database.js';
import {
  newDataDir,
  removeDataDirs,
  type SpawnedServer,
  spawnServer,
  stopAllServers,
} from './spawn-server.js';

/** Issue 14 points 1, 5 and 11, as a visitor of the example server meets them. */
describe("the example server's own routes", () => {
  let server: SpawnedServer;
  let target: StorageTarget;
  let dataDir: string;

  beforeAll(async () => {
    target = storageTarget();
    // A data folder that already exists with a looser mode, its database folder too.
    dataDir = await newDataDir();
    await mkdir(path.join(dataDir, 'pglite'), { mode: 0o755 });
    await chmod(dataDir, 0o755);
    await chmod(path.join(dataDir, 'pglite'), 0o755);
    server = await spawnServer(dataDir, target.env);
  });
  afterAll(async () => {
    await stopAllServers();
    await target?.dispose();
    await removeDataDirs();
  });

  /** Raw text on a fresh connection (HTTP clients refuse to send such hosts or methods). */
  function raw(text: string): Promise<{ status: number; head: string; body: string }> {
    const { hostname, port } = new URL(server.url);
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(port), hostname, () => socket.write(text));
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
        resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), head, body });
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

  const asResponse = (r: { status: number; head: string; body: string }) => ({
    status: r.status,
    body: JSON.parse(r.body.trim()) as Record<string, unknown>,
    headers: new Headers({ 'x-request-id': /x-request-id: (\S+)/i.exec(r.head)?.[1] ?? '' }),
  });

  it('narrows an existing data folder to mode 0700 at start, the database folder too', async () => {
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    if (!target.env.DATABASE_URL) expect((await stat(path.join(dataDir, 'pglite'))).mode & 0o777).toBe(0o700);
  });

  it('has no route that registers a passkey for an anonymous browser', async () => {
    for (const route of ['/passkeys/register/begin', '/passkeys/register/create']) {
      const res = await fetch(`${server.url}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'victim@example.com', domain: 'localhost' }),
      });
      expectError(
        { status: res.status, body: await res.json(), headers: res.headers },
        404,
        'route_not_found',
      );
    }
    const page = await fetch(`${server.url}/passkeys`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Sign in first');
  });

  it('answers a malformed JSON body, a missing file and odd requests in the documented shape', async () => {
    for (const route of ['/', '/passkeys', '/magic-link', '/reset-password', '/passkeys/register/begin']) {
      const res = await fetch(`${server.url}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"email": ',
      });
      const text = await res.text();
      expect(text, route).not.toMatch(/<html|<pre|\bat \//i);
      expect(res.status, route).toBeGreaterThanOrEqual(400);
      expect(res.status, route).toBeLessThan(500);
      expect(JSON.parse(text)).toMatchObject({ status_code: res.status, request_id: expect.any(String) });
    }
    const missing = await fetch(`${server.url}/passkeys/lib/nope.js`);
    expectError(
      { status: missing.status, body: await missing.json(), headers: missing.headers },
      404,
      'route_not_found',
    );

    const { host } = new URL(server.url);
    for (const route of ['/', '/passkeys', '/v1/auth/users/user_x', '/passkeys/lib/index.js']) {
      for (const badHost of ['a b', 'a%zz', 'u@evil', '[::1']) {
        const res = await raw(`GET ${route} HTTP/1.1\r\nHost: ${badHost}\r\nConnection: close\r\n\r\n`);
        expect(res.status, `${route} with Host ${badHost}`).toBeGreaterThanOrEqual(200);
        expect(res.status, `${route} with Host ${badHost}`).toBeLessThan(500);
        expect(res.body).not.toMatch(/<pre|\bat \/|node_modules/);
      }
      const trace = await raw(`TRACE ${route} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      expect(trace.body, `TRACE ${route}: ${trace.head}`).not.toBe('');
      expectError(asResponse(trace), 405, 'method_not_allowed');
    }
  });

  it('rate-limits its pages per IP: a burst of 60 sees 429s in the documented shape', async () => {
    // The windows are fixed and epoch-aligned: a burst that straddles a boundary is counted in
    // two windows, so it starts at the beginning of one.
    const windowMs = DEMO_RATE_LIMIT.windowSeconds * 1000;
    await new Promise((r) => setTimeout(r, windowMs - (Date.now() % windowMs) + 50));
    const burst = await Promise.all(
      Array.from({ length: 60 }, () =>
        fetch(`${server.url}/passkeys`).then(async (r) => ({ r, text: await r.text() })),
      ),
    );
    const refused = burst.filter(({ r }) => r.status === 429);
    expect(burst.filter(({ r }) => r.status === 200).length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThanOrEqual(10);
    const { r, text } = refused[0]!;
    expectError({ status: r.status, body: JSON.parse(text), headers: r.headers }, 429, 'rate_limited');
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    // The API keeps its own limits: the demo's count does not refuse /v1.
    const api = await fetch(`${server.url}/v1/auth/users/user_x`, {
      headers: { authorization: `Bearer ${server.keys.secret_key}` },
    });
    expect(api.status).toBe(404);
  }, 30_000);
});
