import type { Context } from 'hono';
import type { HttpEnv } from './env.js';
import { listHeaders } from './list-headers.js';

/**
 * Whether this is Node, whose servers and adapters read a Response through its JS getters and
 * methods. Native servers (workerd, `Deno.serve`, `Bun.serve`) write the body the Response was
 * constructed with and never call an override, so everywhere else the text goes to the
 * constructor as well, or every answer would leave with an empty body. Deno, Bun and workerd
 * with `nodejs_compat` also define a `process` that calls itself node, hence the exclusions.
 */
const readsThroughGetters =
  typeof process !== 'undefined' &&
  process.release?.name === 'node' &&
  !('Deno' in globalThis) &&
  !('Bun' in globalThis) &&
  globalThis.navigator?.userAgent !== 'Cloudflare-Workers';

/**
 * A `Response` whose body is a string kept as is. Every answer of the API is a small JSON text,
 * and a plain `Response` built from a string sets up a ReadableStream that the adapter then
 * reads back: on cheap routes that cost more than the route. Here the stream is made only when
 * someone asks for `body`; `text()`, `json()` and `arrayBuffer()` answer from the string. Its
 * headers are a list-headers.ts `Headers`, which the pipeline's half dozen `set` calls and the
 * adapter's read-back cost little. (Both on Node only: see readsThroughGetters.)
 */
function defineTextResponse() {
  return class TextResponse extends Response {
    readonly #text: string;
    readonly #headers: Headers | undefined;
    #stream: ReadableStream<Uint8Array<ArrayBuffer>> | undefined;
    #used = false;

    constructor(text: string, init: ResponseInit) {
      if (readsThroughGetters) {
        // Status and status text only: the headers are kept here, not copied into undici's list.
        super(null, { status: init.status, statusText: init.statusText });
        this.#headers = listHeaders(init.headers);
      } else {
        super(text, init);
      }
      this.#text = text;
    }

    override get headers(): Headers {
      return this.#headers ?? super.headers;
    }

    override get body(): ReadableStream<Uint8Array<ArrayBuffer>> {
      this.#stream ??= new Blob([this.#text]).stream();
      return this.#stream;
    }

    override get bodyUsed(): boolean {
      return this.#used || (this.#stream?.locked ?? false);
    }

    /** The string itself, once, as `text()` would read it. */
    #take(): string {
      if (this.bodyUsed) throw new TypeError('Body is unusable: it has already been read');
      this.#used = true;
      return this.#text;
    }

    /** `text()` without the promise, for an adapter that writes the answer in the same turn. */
    [TAKE_TEXT](): string {
      return this.#take();
    }

    override text(): Promise<string> {
      return new Promise((resolve) => resolve(this.#take()));
    }

    override json(): Promise<unknown> {
      return this.text().then((text) => JSON.parse(text));
    }

    override arrayBuffer(): Promise<ArrayBuffer> {
      return this.text().then((text) => new TextEncoder().encode(text).buffer as ArrayBuffer);
    }

    override bytes(): Promise<Uint8Array<ArrayBuffer>> {
      return this.text().then((text) => new TextEncoder().encode(text));
    }

    override blob(): Promise<Blob> {
      return this.text().then((text) => new Blob([text], { type: this.headers.get('content-type') ?? '' }));
    }

    override formData(): Promise<FormData> {
      return this.text().then((text) => new Response(text, this).formData());
    }

    override clone(): Response {
      if (this.bodyUsed) throw new TypeError('Response.clone: Body has already been consumed.');
      return new TextResponse(this.#text, this);
    }
  };
}

/**
 * The key of a TextResponse's synchronous `text()`: the Express adapter writes a text answer in
 * the turn it arrives instead of awaiting `text()` (see its send-response.ts).
 */
const TAKE_TEXT = Symbol.for('latchkey.takeText');

let textResponseClass: ReturnType<typeof defineTextResponse> | undefined;

/**
 * A TextResponse of `text`. The class is defined on the first answer: on Node, touching the
 * global `Response` at import loads the whole of undici, which a process that has not served yet
 * does not need.
 */
export function textResponse(text: string, init: ResponseInit): Response {
  textResponseClass ??= defineTextResponse();
  return new textResponseClass(text, init);
}

/**
 * Makes `c.json` answer with a TextResponse: Hono builds the status and headers as usual (from a
 * bodiless answer, which costs no stream), and the JSON text is carried beside them.
 */
export function useTextResponses(c: Context<HttpEnv>): void {
  // Hono's own overloads are typed per route; at run time both take (data, status | init, headers).
  const body = c.body as (
    data: null,
    arg?: number | ResponseInit,
    headers?: Record<string, string>,
  ) => Response;
  const json = (object: unknown, arg?: number | ResponseInit, headers?: Record<string, string>) => {
    const head = body(null, arg, { 'content-type': 'application/json', ...headers });
    return textResponse(JSON.stringify(object), head);
  };
  c.json = json as unknown as typeof c.json;
}
