import { errorFromResponse, LatchkeyClientError } from './errors.js';
import type { paths } from './generated/openapi.js';

type Method = 'get' | 'post' | 'patch' | 'delete' | 'put';

/** Every documented route as `method path`, e.g. `post /v1/auth/otps/verify`. */
export type Route = {
  [P in keyof paths]: {
    [M in Method]: [NonNullable<paths[P][M]>] extends [never] ? never : `${M} ${P & string}`;
  }[Method];
}[keyof paths];

type Operation<R extends Route> = R extends `${infer M} ${infer P}`
  ? P extends keyof paths
    ? M extends keyof paths[P]
      ? NonNullable<paths[P][M]>
      : never
    : never
  : never;

type JsonBody<O> = O extends { requestBody: { content: { 'application/json': infer B } } }
  ? B
  : O extends { requestBody?: { content: { 'application/json': infer B } } }
    ? B | undefined
    : never;

type PathParams<O> = O extends { parameters: { path: infer P } }
  ? [P] extends [undefined]
    ? never
    : P
  : never;
type QueryParams<O> = O extends { parameters: { query?: infer Q } }
  ? [Q] extends [undefined]
    ? never
    : Q
  : never;

/** The JSON a route answers with on success. */
export type ResponseOf<R extends Route> =
  Operation<R> extends {
    responses: { 200: { content: { 'application/json': infer T } } };
  }
    ? T
    : unknown;

/** The JSON body a route takes. */
export type BodyOf<R extends Route> = JsonBody<Operation<R>>;

type Part<K extends string, T> = [T] extends [never]
  ? { [_ in K]?: never }
  : undefined extends T
    ? { [_ in K]?: T }
    : { [_ in K]: T };

/** What a call to a route needs: its body, path parameters and query, each only where the route has one. */
export type CallOptions<R extends Route> = Part<'body', BodyOf<R>> &
  Part<'params', PathParams<Operation<R>>> &
  Part<'query', QueryParams<Operation<R>>> & {
    /** Overrides the client's key for this call (a session JWT for a host's own route, say). */
    bearer?: string;
    signal?: AbortSignal;
  };

/** The arguments after the route: optional when the route needs nothing. */
export type CallArgs<R extends Route> =
  Partial<CallOptions<R>> extends CallOptions<R> ? [options?: CallOptions<R>] : [options: CallOptions<R>];

export interface TransportOptions {
  /** Where Latchkey is mounted, e.g. `https://auth.example.com`; the page's origin when absent. */
  baseUrl?: string;
  /** The App's public token (browser) or secret key (server), sent as the bearer. */
  key?: string;
  fetch?: typeof fetch;
  /** `include` for the cookie mode, where the session rides in cookies. */
  credentials?: RequestCredentials;
}

export type Call<Allowed extends Route> = <R extends Allowed>(
  route: R,
  ...args: CallArgs<R>
) => Promise<ResponseOf<R>>;

/** A typed `fetch` over the OpenAPI routes; throws `LatchkeyClientError` on any failure. */
export function createTransport(options: TransportOptions): Call<Route> {
  const base = (options.baseUrl ?? '').replace(/\/+$/, '');
  return async (route, ...args) => {
    const opts = (args[0] ?? {}) as {
      body?: unknown;
      params?: Record<string, string>;
      query?: Record<string, unknown>;
      bearer?: string;
      signal?: AbortSignal;
    };
    const space = route.indexOf(' ');
    const method = route.slice(0, space).toUpperCase();
    let path = route
      .slice(space + 1)
      .replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(opts.params?.[name] ?? '')));
    if (opts.query) {
      const search = new URLSearchParams();
      for (const [name, value] of Object.entries(opts.query))
        if (value !== undefined) search.set(name, String(value));
      const text = search.toString();
      if (text) path += `?${text}`;
    }
    const headers: Record<string, string> = { accept: 'application/json' };
    const bearer = opts.bearer ?? options.key;
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    return (await send(options, `${base}${path}`, {
      method,
      headers,
      ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
      ...(options.credentials ? { credentials: options.credentials } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    })) as never;
  };
}

/** One request, its JSON answer, or the typed error. Also used for a host's own routes. */
export async function send(options: TransportOptions, url: string, init: RequestInit): Promise<unknown> {
  const doFetch = options.fetch ?? globalThis.fetch;
  let res: Response;
  try {
    res = await doFetch(url, init);
  } catch (cause) {
    throw new LatchkeyClientError({
      status: 0,
      error_type: 'network_error',
      message: `No answer from ${url}: ${cause instanceof Error ? cause.message : String(cause)}`,
      cause,
    });
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!res.ok) throw errorFromResponse(res, body);
  return body;
}
