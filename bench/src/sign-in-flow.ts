import { open } from 'node:fs/promises';
import http from 'node:http';
import type { OutboxEntry } from '@latchkey/senders';
import { outboxSecret } from './outbox-secret.js';

/**
 * The pieces of a full sign-in row (issue 38: send, read the code, verify, as a user does): a
 * reader of the codes a server writes to its outbox file as they arrive, and a keep-alive JSON
 * client lighter than `fetch`, since the bench shares the machine's two cores with the servers.
 */

/**
 * Follows a JSON-lines outbox from its current end: `code(to)` resolves with the code (or a link's
 * token) last written for that address, reading only what was appended since the last read.
 */
export async function outboxTail(file: string) {
  const handle = await open(file, 'a+');
  let offset = (await handle.stat()).size;
  let partial = '';
  const latest = new Map<string, string>();
  let reading: Promise<void> | undefined;
  const readMore = async () => {
    const { size } = await handle.stat();
    if (size <= offset) return;
    const buffer = Buffer.alloc(size - offset);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
    offset += bytesRead;
    const lines = (partial + buffer.subarray(0, bytesRead).toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (!line) continue;
      const m = JSON.parse(line) as OutboxEntry;
      latest.set(m.to, outboxSecret(m) ?? '');
    }
  };
  return {
    async code(to: string): Promise<string> {
      for (let tries = 0; tries < 5000; tries++) {
        const found = latest.get(to);
        if (found !== undefined) return found;
        // One read at a time: concurrent flows share it rather than each reading the same bytes.
        reading ??= readMore().finally(() => {
          reading = undefined;
        });
        await reading;
        if (!latest.has(to)) await new Promise((r) => setTimeout(r, 1));
      }
      throw new Error(`no code was written for ${to}`);
    },
    close: () => handle.close(),
  };
}

export interface JsonAnswer {
  status: number;
  body: Record<string, unknown>;
  headers: http.IncomingHttpHeaders;
}

/** POSTs JSON over a keep-alive agent of `connections` sockets; answers the status and the parsed body. */
export function jsonClient(connections: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
    new Promise<JsonAnswer>((resolve, reject) => {
      const payload = JSON.stringify(body);
      const req = http.request(
        url,
        {
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(payload),
            origin: 'http://127.0.0.1',
            ...headers,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: Record<string, unknown> = {};
            try {
              parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
            } catch {
              parsed = { text };
            }
            resolve({ status: res.statusCode ?? 0, body: parsed, headers: res.headers });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  return { post, close: () => agent.destroy() };
}
