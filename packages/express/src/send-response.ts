import type { ServerResponse } from 'node:http';

const TEXT_TYPE = /^(?:application\/(?:[\w.+-]+\+)?json|text\/)/i;

/**
 * Writes a Web `Response` to a Node response in one step: status and headers together, and the
 * body whole. A JSON or text body is read as a string, so Node sends it in the same write as the
 * headers; anything else goes as bytes. Several Set-Cookie headers stay several. The body's
 * length goes in Content-Length: headers written before the body leave Node no length to set, and
 * it would frame the answer as chunks (several buffers in one writev, and a longer answer).
 */
export async function sendResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  let body: string | Buffer | undefined;
  // A text answer is read by text() alone: asking for `body` first would make core's
  // TextResponse build the stream it exists to avoid. No body and an empty one send the same.
  if (TEXT_TYPE.test(headers['content-type']?.toString() ?? '')) body = (await response.text()) || undefined;
  else if (response.body) body = Buffer.from(await response.arrayBuffer());
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  res.writeHead(response.status, headers);
  res.end(body);
}
