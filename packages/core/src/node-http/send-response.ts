import type { ServerResponse } from 'node:http';

const TEXT_TYPE = /^(?:application\/(?:[\w.+-]+\+)?json|text\/)/i;

/**
 * Writes a Web `Response` to a Node response in one step: status and headers together, and the
 * body whole. A JSON or text body is read as a string, so Node sends it in the same write as the
 * headers; anything else goes as bytes. Several Set-Cookie headers stay several. The body's
 * length goes in Content-Length: headers written before the body leave Node no length to set, and
 * it would frame the answer as chunks (several buffers in one writev, and a longer answer).
 */
export function sendResponse(response: Response, res: ServerResponse): void | Promise<void> {
  const take = (response as Response & { [TAKE_TEXT]?: () => string })[TAKE_TEXT];
  // Core's TextResponse gives its text at once: the answer goes out in this turn.
  if (typeof take === 'function') {
    write(response, res, take.call(response) || undefined);
    return;
  }
  return sendRead(response, res);
}

/** Core's TextResponse's synchronous text() (see core's text-response.ts). */
const TAKE_TEXT = Symbol.for('latchkey.takeText');

async function sendRead(response: Response, res: ServerResponse): Promise<void> {
  let body: string | Buffer | undefined;
  // A text answer is read by text() alone: asking for `body` first would build a stream.
  // No body and an empty one send the same.
  if (TEXT_TYPE.test(response.headers.get('content-type') ?? '')) body = (await response.text()) || undefined;
  else if (response.body) body = Buffer.from(await response.arrayBuffer());
  write(response, res, body);
}

function write(response: Response, res: ServerResponse, body: string | Buffer | undefined): void {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  res.writeHead(response.status, headers);
  res.end(body);
}
