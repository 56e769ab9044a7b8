import { readTextCapped } from '../../crypto/read-capped.js';
import { LatchkeyError } from '../../errors.js';
import { parseJsonExact } from './json.js';

/** One RPC endpoint, resolved from the options. */
export interface Endpoint {
  url: string;
  /** Names the chain and network in error messages, e.g. `ethereum mainnet`; never the URL. */
  label: string;
  /** Per attempt, including reading the body. */
  timeoutMs: number;
  /** Further attempts after a transient failure (network error, timeout, HTTP 429/5xx). */
  retries: number;
  headers: Record<string, string>;
  fetch: typeof fetch;
}

/** An answer, read whole and parsed; `json` is undefined when the body is not JSON. */
export interface HttpAnswer {
  status: number;
  json: unknown;
}

/** Bodies larger than this are refused: a balance answer is a few hundred bytes. */
export const MAX_ANSWER_BYTES = 1024 * 1024;
const TRANSIENT_STATUSES = new Set([408, 425, 429, 500, 502, 503, 504]);
const BACKOFF_MS = 100;

/**
 * Sends the request, retrying transient failures a bounded number of times with a short
 * backoff. Resolves with any non-transient answer (the caller judges its status); rejects with
 * `chain_timeout` when the last attempt timed out, `chain_unavailable` when it failed otherwise,
 * `chain_invalid_response` for an oversized body. The URL (which may hold an API key) is never
 * put in an error.
 */
export async function send(
  ep: Endpoint,
  url: string,
  init: { method: 'GET' | 'POST'; body?: string },
): Promise<HttpAnswer> {
  let last: LatchkeyError | undefined;
  for (let attempt = 0; attempt <= ep.retries; attempt++) {
    if (attempt > 0) await sleep(BACKOFF_MS * 2 ** (attempt - 1));
    try {
      const signal = AbortSignal.timeout(ep.timeoutMs);
      const res = await ep.fetch(url, {
        method: init.method,
        headers: {
          accept: 'application/json',
          ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...ep.headers,
        },
        body: init.body,
        signal,
      });
      if (TRANSIENT_STATUSES.has(res.status)) {
        await res.body?.cancel().catch(() => {});
        last = new LatchkeyError(
          'chain_unavailable',
          `${ep.label}: the RPC endpoint answered HTTP ${res.status}.`,
        );
        continue;
      }
      const text = await readCapped(res, ep);
      let json: unknown;
      try {
        json = parseJsonExact(text);
      } catch {
        // Left undefined: each protocol decides what a non-JSON answer means for its status.
      }
      return { status: res.status, json };
    } catch (err) {
      if (err instanceof LatchkeyError) throw err;
      last = isTimeout(err)
        ? new LatchkeyError(
            'chain_timeout',
            `${ep.label}: the RPC endpoint did not answer within ${ep.timeoutMs} ms.`,
            {
              cause: err,
            },
          )
        : new LatchkeyError('chain_unavailable', `${ep.label}: the RPC endpoint could not be reached.`, {
            cause: err,
          });
    }
  }
  throw last!;
}

async function readCapped(res: Response, ep: Endpoint): Promise<string> {
  const declared = Number(res.headers.get('content-length'));
  if (declared > MAX_ANSWER_BYTES) {
    await res.body?.cancel().catch(() => {});
    throw tooLarge(ep);
  }
  return readTextCapped(res.body, MAX_ANSWER_BYTES, () => tooLarge(ep));
}

const tooLarge = (ep: Endpoint) =>
  new LatchkeyError(
    'chain_invalid_response',
    `${ep.label}: the answer is larger than ${MAX_ANSWER_BYTES} bytes.`,
  );

const isTimeout = (err: unknown) =>
  err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A `chain_invalid_response` naming what was wrong with the answer. */
export const invalidAnswer = (ep: Pick<Endpoint, 'label'>, what: string) =>
  new LatchkeyError('chain_invalid_response', `${ep.label}: ${what}`);

/** A plain object (not an array or null), for shape checks on parsed answers. */
export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
