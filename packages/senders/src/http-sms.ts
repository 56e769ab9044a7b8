import { LatchkeyError, type Sender } from '@latchkey/core';
import { invalidOption, requireChannel } from './channel.js';

export interface HttpSmsSenderOptions {
  /** The endpoint that receives `POST { to, text, app_id, kind }` as JSON. */
  url: string;
  /** Sent with every request, e.g. an `authorization` header for the gateway. */
  headers?: Record<string, string>;
  /** Whole-request bound, connect to last body byte; default 10 s. */
  timeoutMs?: number;
}

/**
 * Delivers SMS messages by POSTing them to an HTTP endpoint: an SMS gateway's webhook or a
 * small service of the host's own. A non-2xx answer, a network error or the timeout is
 * `sender_unavailable`.
 */
export function httpSmsSender(options: HttpSmsSenderOptions): Sender {
  const url = parseHttpUrl(options?.url);
  const timeoutMs = options.timeoutMs ?? 10_000;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1)
    invalidOption('httpSmsSender', 'timeoutMs must be a positive integer');
  const headers = new Headers(options.headers);
  headers.set('content-type', 'application/json');

  return {
    async send(message) {
      requireChannel('httpSmsSender', 'sms', message);
      let response: Response;
      try {
        response = await fetch(url, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            to: message.to,
            text: message.text,
            app_id: message.app_id,
            kind: message.kind,
          }),
          signal: AbortSignal.timeout(timeoutMs),
          // A redirect could carry the gateway's credentials in `headers` to another host.
          redirect: 'error',
        });
      } catch (cause) {
        throw new LatchkeyError('sender_unavailable', undefined, { cause });
      }
      // Release the connection; the body is not needed.
      await response.body?.cancel().catch(() => {});
      if (!response.ok) {
        throw new LatchkeyError('sender_unavailable', undefined, {
          cause: new Error(`The SMS endpoint answered HTTP ${response.status}.`),
        });
      }
    },
  };
}

function parseHttpUrl(value: unknown): URL {
  let url: URL | undefined;
  try {
    url = new URL(String(value));
  } catch {}
  if (typeof value !== 'string' || !url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    return invalidOption('httpSmsSender', 'url must be an http(s) URL');
  }
  return url;
}
