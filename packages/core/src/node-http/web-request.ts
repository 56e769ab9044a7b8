import type { IncomingMessage } from 'node:http';
import { lowerHeaderName } from '../http/header-name.js';

/**
 * A Web `Request` view of a Node request that builds only what is read. Latchkey's HTTP layer
 * reads the method, the URL, a few headers and (for bodies) the body stream; building a full
 * undici `Request` for that (an AbortSignal, a Headers copy, WebIDL conversions) cost more than
 * the route itself on the cheap routes. Any other member (`signal`, `clone()`, `text()`, …)
 * builds the real `Request` once, from the same parts, and answers from it.
 */
export function webRequest(req: IncomingMessage, url: string, parsedBody?: string): Request {
  const view = Object.create(lazyRequestPrototype) as LazyRequest;
  view[SOURCE] = { req, url, parsedBody };
  return view as unknown as Request;
}

const SOURCE = Symbol('source');
const HEADERS = Symbol('headers');
const VIEW = Symbol('view');
const BODY = Symbol('body');
const REAL = Symbol('request');

interface LazyRequest {
  [SOURCE]: { req: IncomingMessage; url: string; parsedBody: string | undefined };
  /** The read-only view `headers` gives until something needs the real Headers. */
  [VIEW]?: Headers;
  [HEADERS]?: Headers;
  [BODY]?: ReadableStream<Uint8Array> | null;
  [REAL]?: Request;
}

const hasBody = (method: string | undefined) => method !== 'GET' && method !== 'HEAD';

function headersOf(view: LazyRequest): Headers {
  const { req, parsedBody } = view[SOURCE];
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    // A body a host parser already read is passed on as text: its framing headers no longer apply.
    if (parsedBody !== undefined && (name === 'content-length' || name === 'transfer-encoding')) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.append(name, value);
  }
  return headers;
}

function bodyOf(view: LazyRequest): ReadableStream<Uint8Array> | null {
  const { req, parsedBody } = view[SOURCE];
  if (!hasBody(req.method)) return null;
  if (parsedBody !== undefined) return new Blob([parsedBody]).stream();
  return nodeBodyStream(req);
}

/**
 * The body as a Web stream that, when cancelled (the core stops reading at its size cap), leaves
 * the Node request alone instead of destroying it: destroying it resets the socket, and with it
 * the answer and the keep-alive connection. The router then drains or closes (unread-body.ts).
 */
function nodeBodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  const detach = () => {
    req.removeListener('data', onData);
    req.removeListener('end', onEnd);
    req.removeListener('error', onError);
    req.pause();
  };
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const onData = (chunk: Buffer) => {
    controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    if ((controller.desiredSize ?? 0) <= 0) req.pause();
  };
  const onEnd = () => {
    detach();
    controller.close();
  };
  const onError = (err: Error) => {
    detach();
    controller.error(err);
  };
  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        req.on('data', onData);
        req.on('end', onEnd);
        req.on('error', onError);
        req.pause();
      },
      pull() {
        req.resume();
      },
      cancel() {
        detach();
      },
    },
    { highWaterMark: 1 },
  );
}

/** Core's jsonBodyMiddleware reads the body through this when it is there (see middleware.ts). */
const READ_BODY_TEXT = Symbol.for('latchkey.readBodyText');
const utf8 = new TextDecoder();

/**
 * The body as UTF-8 text, read straight from the Node stream: at most `maxBytes`, past which
 * reading stops (the Node request left alone, as a cancelled body stream leaves it) and
 * `tooLarge()` is thrown. Decoded as `TextDecoder` decodes, so a leading BOM goes as before.
 */
function readBodyText(view: LazyRequest, maxBytes: number, tooLarge: () => Error): Promise<string> {
  if (view[BODY] !== undefined)
    return Promise.reject(new TypeError('Body is unusable: it has already been read'));
  view[BODY] = null;
  const { req, parsedBody } = view[SOURCE];
  if (!hasBody(req.method)) return Promise.resolve('');
  if (parsedBody !== undefined)
    return Buffer.byteLength(parsedBody) > maxBytes
      ? Promise.reject(tooLarge())
      : Promise.resolve(parsedBody);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const detach = () => {
      req.removeListener('data', onData);
      req.removeListener('end', onEnd);
      req.removeListener('error', onError);
      req.pause();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size <= maxBytes) {
        chunks.push(chunk);
        return;
      }
      detach();
      reject(tooLarge());
    };
    const onEnd = () => {
      detach();
      resolve(utf8.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)));
    };
    const onError = (err: Error) => {
      detach();
      reject(err);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/** The real Headers of the request, built once from the Node headers. */
function realHeaders(view: LazyRequest): Headers {
  view[HEADERS] ??= headersOf(view);
  return view[HEADERS];
}

/**
 * Latchkey reads a handful of headers by name from each request. `get` and `has` answer those
 * from the Node request's own header object (names lower-cased, repeats already joined by Node,
 * as headersOf copies them), which spares copying every header into an undici Headers through
 * WebIDL checks. Any other member, and any name that is not a plain token, goes to the real
 * Headers; once it exists, everything does, so a change made through it is always seen.
 */
function headersView(view: LazyRequest): Headers {
  const headers = Object.create(headersViewPrototype) as HeadersView;
  headers[OWNER] = view;
  return headers as unknown as Headers;
}

const OWNER = Symbol('owner');

interface HeadersView {
  [OWNER]: LazyRequest;
}

/** The value Node holds for `name`, as the real Headers would give it, or undefined to ask it. */
function nodeValue(view: LazyRequest, name: string): string | null | undefined {
  if (view[HEADERS] !== undefined) return undefined;
  const key = lowerHeaderName(name);
  if (key === undefined) return undefined;
  const { req, parsedBody } = view[SOURCE];
  if (parsedBody !== undefined && (key === 'content-length' || key === 'transfer-encoding')) return null;
  const headers = req.headers;
  const value = Object.hasOwn(headers, key) ? headers[key] : undefined;
  if (value === undefined) return hasOtherCase(headers, key) ? undefined : null;
  const text = Array.isArray(value) ? value.join(', ') : value;
  // What Node's parser gives is a plain, trimmed string; anything a host's middleware wrote in
  // otherwise (a number, padding, CR or LF) is for the real Headers to convert or refuse.
  return typeof text === 'string' && !UNPARSED.test(text) ? text : undefined;
}

/** Edge whitespace, or a character no parsed header value holds. */
const UNPARSED = /^[\t ]|[\t ]$|[\0\r\n\u0100-\uffff]/;

/** True when a host's middleware set `name` in another case: Node itself lower-cases every name. */
function hasOtherCase(headers: IncomingMessage['headers'], name: string): boolean {
  for (const key in headers) if (Object.hasOwn(headers, key) && key.toLowerCase() === name) return true;
  return false;
}

const headersViewPrototype: object = Object.create(Headers.prototype, {
  ...delegatedTo(Headers.prototype, (self: HeadersView) => realHeaders(self[OWNER])),
  get: {
    value(this: HeadersView, name: string) {
      const value = nodeValue(this[OWNER], name);
      return value === undefined ? realHeaders(this[OWNER]).get(name) : value;
    },
  },
  has: {
    value(this: HeadersView, name: string) {
      const value = nodeValue(this[OWNER], name);
      return value === undefined ? realHeaders(this[OWNER]).has(name) : value !== null;
    },
  },
});

function realRequest(view: LazyRequest): Request {
  if (view[REAL]) return view[REAL];
  const { req, url } = view[SOURCE];
  const lazy = view as unknown as Request;
  const body = lazy.body;
  // A body already read through the view cannot be read again through the real Request.
  const usable = body && !body.locked ? body : null;
  const init: RequestInit & { duplex?: 'half' } = { method: req.method ?? 'GET', headers: realHeaders(view) };
  if (usable) {
    init.body = usable;
    init.duplex = 'half';
  }
  view[REAL] = new Request(url, init);
  return view[REAL];
}

const fast: PropertyDescriptorMap = {
  method: {
    get(this: LazyRequest) {
      return this[SOURCE].req.method ?? 'GET';
    },
  },
  url: {
    get(this: LazyRequest) {
      return this[SOURCE].url;
    },
  },
  headers: {
    get(this: LazyRequest) {
      this[VIEW] ??= headersView(this);
      return this[VIEW];
    },
  },
  body: {
    get(this: LazyRequest) {
      if (this[BODY] === undefined) this[BODY] = bodyOf(this);
      return this[BODY];
    },
  },
};

/** Every member of `proto` (getters and methods, by name or symbol), answered by `real(this)`. */
function delegatedTo<T>(proto: object, real: (self: T) => object): PropertyDescriptorMap {
  const map: PropertyDescriptorMap = {};
  for (const name of Reflect.ownKeys(proto)) {
    if (name === 'constructor' || name === Symbol.toStringTag) continue;
    const own = Object.getOwnPropertyDescriptor(proto, name)!;
    if (own.get) {
      map[name] = {
        get(this: T) {
          return Reflect.get(real(this), name);
        },
      };
    } else if (typeof own.value === 'function') {
      map[name] = {
        value(this: T, ...args: unknown[]) {
          const target = real(this);
          return (Reflect.get(target, name) as (...a: unknown[]) => unknown).apply(target, args);
        },
      };
    }
  }
  return map;
}

const lazyRequestPrototype: object = Object.create(Request.prototype, {
  ...delegatedTo(Request.prototype, realRequest),
  ...fast,
  [READ_BODY_TEXT]: {
    value(this: LazyRequest, maxBytes: number, tooLarge: () => Error) {
      return readBodyText(this, maxBytes, tooLarge);
    },
  },
});
