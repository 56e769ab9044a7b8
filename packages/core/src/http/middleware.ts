import type { Context } from 'hono';
import { newRequestId } from '../crypto/ids.js';
import { readTextCapped } from '../crypto/read-capped.js';
import { LatchkeyError } from '../errors.js';
import type { RandomSource } from '../ports/random.js';
import type { HttpEnv, HttpVariables } from './env.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.js';
import { findUnstorableText, isStorableText, mayHoldUnstorableText, unstorableText } from './text-safety.js';

type C = Context<HttpEnv>;

/** A new request id per call (the pipeline sets it on the context and on the answer). */
export function requestIds(random: RandomSource): () => string {
  const pooled = pooledRandom(random, 12 * 256);
  return () => newRequestId(pooled);
}

/**
 * Request ids need to be unguessable-ish and unique, not secret: drawing them from a block of
 * random bytes fetched once per 256 requests saves a call into the system generator per request.
 */
function pooledRandom(random: RandomSource, blockSize: number): RandomSource {
  let block: Uint8Array = new Uint8Array(0);
  let used = 0;
  return {
    bytes: (n: number): Uint8Array => {
      if (used + n > block.length) {
        block = random.bytes(Math.max(blockSize, n));
        used = 0;
      }
      used += n;
      return block.subarray(used - n, used);
    },
  };
}

const BEARER = /^Bearer +(\S+)\s*$/i;

/** The App and kind of an API key, or null for none (the apps service is one). */
export interface ApiKeys {
  authenticateKey(key: string): Promise<{ app: HttpVariables['app']; kind: HttpVariables['keyKind'] } | null>;
}

/** Resolves the App from `Authorization: Bearer <sk_…|pk_…>`; any valid key passes here. */
export function apiKeyCheck(
  apps: ApiKeys,
  isOpenPath: (path: string) => boolean,
  tokenInQuery: (method: string, path: string) => boolean = () => false,
) {
  const check = async (c: C): Promise<void> => {
    const header = c.req.header('authorization');
    const fromQuery = header === undefined && tokenInQuery(c.req.method, c.req.path);
    const key = fromQuery ? c.req.query('public_token') : BEARER.exec(header ?? '')?.[1];
    const found = key ? await apps.authenticateKey(key) : null;
    // A URL is logged and kept in history: only the public token may travel in one.
    if (!found || (fromQuery && found.kind !== 'public')) throw new LatchkeyError('unauthorized');
    c.set('app', found.app);
    c.set('keyKind', found.kind);
  };
  // An open route is passed without a promise (the pipeline awaits only what it gets).
  return (c: C): Promise<void> | undefined => (isOpenPath(c.req.path) ? undefined : check(c));
}

/** Path segments and query values: decodable, and free of what text columns cannot hold. */
export function checkUrlText(c: C): void {
  // A Request's URL is already serialized: any character a text column cannot hold (or a
  // malformed escape) would show as `%`. Without one there is nothing to decode or check.
  if (!c.req.url.includes('%')) return;
  const url = new URL(c.req.url);
  const parts: Array<[string, string]> = url.pathname.split('/').map((segment) => ['path', segment]);
  for (const [key, value] of url.searchParams) parts.push([key, value], [key, key]);
  for (const [field, raw] of parts) {
    let text: string;
    try {
      text = field === 'path' ? decodeURIComponent(raw) : raw;
    } catch {
      throw new LatchkeyError('invalid_field', 'The URL path is not valid percent-encoding.', { field });
    }
    if (!isStorableText(text)) throw unstorableText(field);
  }
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
const FORM_TYPE = /^application\/x-www-form-urlencoded\s*(?:;|$)/i;

/**
 * An adapter's Request may carry its own reader of the body as capped UTF-8 text under this
 * key (the Express adapter does): same answer as reading `body`, without a Web stream, whose
 * set-up cost more than a cheap route. A symbol from the global registry, so no import is needed.
 */
const READ_BODY_TEXT = Symbol.for('latchkey.readBodyText');
type BodyTextReader = (maxBytes: number, tooLarge: () => Error) => Promise<string>;

/**
 * For requests with a body: JSON only, at most `maxBytes` (counted as the bytes arrive, not
 * trusted from Content-Length), parsed once. Hono's body cache then serves the validator.
 */
export function jsonBodyReader(
  maxBytes: number,
  isFormRoute: (method: string, path: string) => boolean = () => false,
) {
  const readText = (c: C): Promise<string> => {
    const declared = Number(c.req.header('content-length') ?? 0);
    if (declared > maxBytes) throw new LatchkeyError('request_too_large', tooLarge(maxBytes));
    const raw = c.req.raw as Request & { [READ_BODY_TEXT]?: BodyTextReader };
    const overLimit = () => new LatchkeyError('request_too_large', tooLarge(maxBytes));
    return raw[READ_BODY_TEXT]
      ? raw[READ_BODY_TEXT](maxBytes, overLimit)
      : readTextCapped(raw.body, maxBytes, overLimit);
  };
  // A provider's form_post: a form, capped like JSON, left for the route to read as text.
  const readForm = async (c: C): Promise<void> => {
    if (!FORM_TYPE.test(c.req.header('content-type') ?? ''))
      throw new LatchkeyError('unsupported_media_type');
    (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(await readText(c));
  };
  const read = async (c: C): Promise<void> => {
    if (isFormRoute(c.req.method, c.req.path)) return readForm(c);
    if (!JSON_TYPE.test(c.req.header('content-type') ?? ''))
      throw new LatchkeyError('unsupported_media_type');
    const text = await readText(c);
    if (nestsDeeperThan(text, MAX_JSON_DEPTH))
      throw new LatchkeyError('invalid_json', `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new LatchkeyError('invalid_json', text.trim() === '' ? 'The request body is empty.' : undefined);
    }
    const bad = mayHoldUnstorableText(text) ? findUnstorableText(parsed) : undefined;
    if (bad !== undefined) throw unstorableText(bad);
    // Hono caches bodies as promises keyed by reader; its type says otherwise.
    (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(text);
  };
  // A request without a body is passed without a promise.
  return (c: C): Promise<void> | undefined => {
    const method = c.req.method;
    return method === 'POST' || method === 'PUT' || method === 'PATCH' ? read(c) : undefined;
  };
}

const tooLarge = (max: number) => `The request body is larger than ${max} bytes.`;
