import { Readable } from 'node:stream';
import type { Latchkey } from '@latchkey/core';
import {
  type Request as ExpressRequest,
  type Response as ExpressResponse,
  type NextFunction,
  Router,
} from 'express';

/** The part of a latchkey instance the router needs. */
export type LatchkeyHandler = Pick<Latchkey, 'fetch'>;

/**
 * An Express router serving Latchkey's `/v1` routes; mount it at any prefix
 * (`app.use('/auth', latchkeyRouter(latchkey))`). It works with or without `express.json()`
 * before it: a body the host already parsed is passed on as JSON, otherwise the raw stream is.
 */
export function latchkeyRouter(latchkey: LatchkeyHandler): Router {
  const router = Router();
  router.use((req: ExpressRequest, res: ExpressResponse, next: NextFunction) => {
    latchkey
      .fetch(toWebRequest(req), { clientIp: req.ip })
      .then((response) => sendWebResponse(response, res))
      .catch(next);
  });
  return router;
}

function toWebRequest(req: ExpressRequest): Request {
  // Inside a mounted router `req.url` is relative to the mount point: exactly what Latchkey routes on.
  const url = new URL(req.url, `${req.protocol}://${req.get('host') ?? 'localhost'}`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const init: RequestInit & { duplex?: 'half' } = { method: req.method, headers };
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    if (bodyAlreadyRead(req)) {
      const text = typeof req.body === 'string' ? req.body : JSON.stringify(req.body ?? null);
      headers.delete('content-length');
      headers.delete('transfer-encoding');
      init.body = text;
    } else {
      init.body = Readable.toWeb(req) as ReadableStream<Uint8Array>;
      init.duplex = 'half';
    }
  }
  return new Request(url, init);
}

/** True when a body parser upstream consumed the stream (express.json and friends set `_body`). */
function bodyAlreadyRead(req: ExpressRequest): boolean {
  return (req as ExpressRequest & { _body?: boolean })._body === true || req.readableEnded;
}

async function sendWebResponse(response: Response, res: ExpressResponse): Promise<void> {
  res.status(response.status);
  response.headers.forEach((value, name) => {
    res.setHeader(name, value);
  });
  const body = response.body ? Buffer.from(await response.arrayBuffer()) : undefined;
  res.end(body);
}
