import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { testApp, testLatchkey } from './helpers.js';

/** A local HTTP server for a protocol under test; it keeps every request it was sent. */
export interface LocalServer {
  url: string;
  requests: Array<{ method: string; path: string; body: string }>;
  close(): Promise<void>;
}

export type Handler = (
  req: { method: string; path: string; body: string },
  res: ServerResponse,
  raw: IncomingMessage,
) => void | Promise<void>;

export async function localServer(handle: Handler): Promise<LocalServer> {
  const requests: LocalServer['requests'] = [];
  const server = createServer(async (raw, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of raw) chunks.push(chunk as Buffer);
    const req = {
      method: raw.method ?? 'GET',
      path: raw.url ?? '/',
      body: Buffer.concat(chunks).toString('utf8'),
    };
    requests.push(req);
    try {
      await handle(req, res, raw);
    } catch (err) {
      res.writeHead(599).end(String(err));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Sends `text` as a JSON body (written by hand where a value must stay an exact big integer). */
export function sendJson(res: ServerResponse, status: number, text: string) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(text);
}

/** An error a JSON-RPC method handler throws to answer with a JSON-RPC error object. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A JSON-RPC 2.0 server over HTTP POST: each method's handler returns the `result` as JSON text
 * (so big integers can be written exactly) or throws RpcError.
 */
export function jsonRpcServer(methods: Record<string, (params: any[]) => string | Promise<string>>) {
  return localServer(async (req, res) => {
    let call: { jsonrpc?: string; id?: unknown; method?: string; params?: unknown };
    try {
      call = JSON.parse(req.body);
    } catch {
      return sendJson(
        res,
        200,
        '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}',
      );
    }
    const id = JSON.stringify(call.id ?? null);
    const handler = call.method === undefined ? undefined : methods[call.method];
    if (call.jsonrpc !== '2.0' || !Array.isArray(call.params) || !handler) {
      return sendJson(
        res,
        200,
        `{"jsonrpc":"2.0","id":${id},"error":{"code":-32601,"message":"Method not found"}}`,
      );
    }
    try {
      const result = await handler(call.params);
      sendJson(res, 200, `{"jsonrpc":"2.0","result":${result},"id":${id}}`);
    } catch (err) {
      if (!(err instanceof RpcError)) throw err;
      sendJson(
        res,
        200,
        `{"jsonrpc":"2.0","error":{"code":${err.code},"message":${JSON.stringify(err.message)}},"id":${id}}`,
      );
    }
  });
}

/** The JSON-RPC calls a server received, parsed. */
export const rpcCalls = (server: LocalServer) =>
  server.requests.map((r) => JSON.parse(r.body) as { method: string; params: any[] });

/** A test App on a Latchkey with these `chains` options, its 5xx reports kept instead of logged. */
export async function balanceApp(chains: Record<string, unknown>, settings: Record<string, unknown> = {}) {
  const internalErrors: unknown[] = [];
  const { latchkey, clock } = testLatchkey({
    chains: chains as never,
    onInternalError: (err) => internalErrors.push(err),
  });
  const t = await testApp(latchkey);
  if (Object.keys(settings).length) await latchkey.apps.updateSettings(t.app_id, settings as never);
  let users = 0;
  return {
    ...t,
    clock,
    internalErrors,
    /** A new user's default wallet of the type, created over HTTP. */
    async wallet(walletType: string) {
      const user = await t.call('POST', '/v1/auth/users', { email: `u${users++}@example.com` });
      expect(user.status).toBe(200);
      const res = await t.call('POST', '/v1/wallets/create', {
        user_id: user.body.user_id,
        wallet_type: walletType,
      });
      expect(res.status).toBe(200);
      return res.body as { id: string; public_address: string; user_id: string };
    },
    balance: (walletId: string, token: string) =>
      t.call('POST', '/v1/wallets/balance', { wallet_id: walletId, token_symbol: token }),
  };
}
