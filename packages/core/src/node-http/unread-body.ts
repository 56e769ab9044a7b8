import type { IncomingMessage, ServerResponse } from 'node:http';

/** Bytes of an unread request body read and dropped so its connection can serve the next request. */
const DRAIN_LIMIT = 8 * 1024 * 1024;

/**
 * Before answering a request whose body was not (wholly) read: a client on a keep-alive
 * connection is still sending it, and the next request on that connection would be parsed out
 * of its remains or reset. A body of known, modest length is read and dropped, so the connection
 * stays usable; anything larger or of unknown length is answered with `Connection: close`, and
 * what arrives meanwhile is dropped until the connection ends.
 */
export function settleUnreadBody(req: IncomingMessage, res: ServerResponse): void {
  if (req.complete || req.destroyed) return;
  const declared = Number(req.headers['content-length']);
  if (!(Number.isSafeInteger(declared) && declared <= DRAIN_LIMIT)) res.setHeader('connection', 'close');
  let dropped = 0;
  req.removeAllListeners('data');
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > DRAIN_LIMIT) req.socket.destroy();
  });
  req.resume();
}
