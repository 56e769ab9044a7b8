import ipaddr from 'ipaddr.js';
import { isPublicAddress, isPublicHost, literalAddress } from '../shared/public-host.js';

/** One signed webhook POST, as the delivery worker hands it over. */
export interface WebhookPost {
  url: string;
  body: string;
  headers: Record<string, string>;
  signal: AbortSignal;
}

/**
 * Sends one POST and resolves with the answer's status code (redirects are not followed), or
 * rejects: `address_not_allowed` when the target is not public and the operator does not allow
 * private targets, the abort signal's error on timeout, any other error when the connection fails.
 */
export type WebhookSend = (post: WebhookPost) => Promise<number>;

/** Resolves a host name to every address it has (Node: `dns.promises.lookup(host, { all: true })`). */
export type WebhookResolver = (host: string) => Promise<Array<{ address: string }>>;

export interface TransportOptions {
  /** Loopback, private and other non-public targets are reachable (the operator's choice). */
  allowPrivateTargets: boolean;
  /** The host's own transport: it resolves names itself, so it takes over pinning. */
  fetch?: typeof fetch | undefined;
  /** How names are resolved; Node's `dns.lookup` on Node when absent. */
  lookup?: WebhookResolver | undefined;
}

const refused = () => new Error('address_not_allowed');

/**
 * The transport deliveries go through. On Node, without a custom fetch, a name is resolved once,
 * every address is checked, and the socket connects to those checked addresses and no others
 * (`lookup` of `node:http`): a DNS answer that changes between check and connect (rebinding)
 * cannot move the connection. TLS still verifies the certificate against the URL's host name.
 * Elsewhere, or with a custom fetch, the addresses are checked (when there is a resolver) and the
 * fetch resolves the name again: pinning is then the fetch's job.
 */
export function webhookTransport(options: TransportOptions): WebhookSend {
  const node = nodeNetworking();
  const resolve = options.lookup ?? node?.resolve;
  const allowPrivate = options.allowPrivateTargets;
  const send =
    options.fetch || !node || !resolve
      ? fetchSend(
          options.fetch ?? ((input, init) => fetch(input, init)),
          // With private targets allowed there is nothing to refuse, and nothing to pin here.
          resolve && !allowPrivate ? checkedAddresses(resolve, false) : undefined,
        )
      : pinnedSend(node, checkedAddresses(resolve, allowPrivate));
  return (post) => {
    // Literals and local names are refused before anything is resolved or connected: a socket
    // given an IP literal never asks `lookup`.
    if (!options.allowPrivateTargets && !isPublicHost(new URL(post.url).hostname))
      return Promise.reject(refused());
    return send(post);
  };
}

type Checked = Array<{ address: string; family: 4 | 6 }>;
type Check = (host: string) => Promise<Checked>;

/**
 * Resolves a name and refuses it when any of its addresses is not public: a name that answers
 * one public and one private address must not reach the private one by the order of the answer.
 * The addresses come back in canonical form, as the socket will use them.
 */
function checkedAddresses(resolve: WebhookResolver, allowPrivate: boolean): Check {
  return async (host) => {
    const answers = await resolve(host);
    const checked: Checked = [];
    for (const { address } of answers) {
      if (!allowPrivate && !isPublicAddress(address)) throw refused();
      // Only the forms a resolver writes: the socket must connect to the address just classified,
      // and `::a.b.c.d` or `0x7f.1` could be read one way here and another by the socket.
      const standard =
        ipaddr.IPv4.isValidFourPartDecimal(address) ||
        (/^[\da-f:]+$/i.test(address) && ipaddr.IPv6.isValid(address));
      if (!standard) throw new Error('the resolver answered something that is not an address');
      const ip = ipaddr.parse(address);
      checked.push({ address: ip.toString(), family: ip.kind() === 'ipv6' ? 6 : 4 });
    }
    if (checked.length === 0) throw new Error('the name has no address');
    return checked;
  };
}

function fetchSend(send: typeof fetch, check: Check | undefined): WebhookSend {
  return async ({ url, body, headers, signal }) => {
    const { hostname } = new URL(url);
    if (check && literalAddress(hostname) === undefined) await orAbort(check(hostname), signal);
    const response = await send(url, { method: 'POST', body, headers, redirect: 'manual', signal });
    await response.body?.cancel().catch(() => {});
    return response.status;
  };
}

/**
 * The promise, or the signal's reason once it aborts: a resolver takes no signal, and one that
 * never answers must not hold the attempt (and its worker) past the timeout.
 */
function orAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** What of `node:http`, `node:https` and `node:dns` the pinned transport uses. */
interface NodeRequest {
  on(event: 'error', listener: (err: Error) => void): unknown;
  end(body: Uint8Array): unknown;
}
interface NodeResponse {
  statusCode?: number | undefined;
  destroy(): unknown;
}
type LookupCallback = (
  err: Error | null,
  address?: string | Array<{ address: string; family: number }>,
  family?: number,
) => void;
interface NodeHttp {
  request(
    url: URL,
    options: {
      method: string;
      headers: Record<string, string>;
      agent: false;
      signal: AbortSignal;
      lookup: (
        host: string,
        options: { family?: number | string; all?: boolean },
        cb: LookupCallback,
      ) => void;
    },
    onResponse: (res: NodeResponse) => void,
  ): NodeRequest;
}
interface NodeNetworking {
  http: NodeHttp;
  https: NodeHttp;
  resolve: WebhookResolver;
}

/**
 * Node's networking modules, found at run time so the core imports nothing of Node's (edge
 * bundles stay free of it). Only on Node itself: Bun, Deno and workerd copy `process` and parts
 * of `node:http`, but whether their sockets honour `lookup` is not Latchkey's to promise.
 */
function nodeNetworking(): NodeNetworking | undefined {
  const g = globalThis as {
    process?: { release?: { name?: string }; getBuiltinModule?: (id: string) => unknown };
    Bun?: unknown;
    Deno?: unknown;
    navigator?: { userAgent?: string };
  };
  if (g.Bun !== undefined || g.Deno !== undefined || g.navigator?.userAgent === 'Cloudflare-Workers') return;
  if (g.process?.release?.name !== 'node' || typeof g.process.getBuiltinModule !== 'function') return;
  try {
    const http = g.process.getBuiltinModule('node:http') as NodeHttp | undefined;
    const https = g.process.getBuiltinModule('node:https') as NodeHttp | undefined;
    const dns = g.process.getBuiltinModule('node:dns') as
      | { promises: { lookup(host: string, options: { all: true }): Promise<Array<{ address: string }>> } }
      | undefined;
    if (typeof http?.request !== 'function' || typeof https?.request !== 'function' || !dns) return;
    return { http, https, resolve: (host) => dns.promises.lookup(host, { all: true }) };
  } catch {
    return;
  }
}

function pinnedSend(node: NodeNetworking, check: Check): WebhookSend {
  // Node asks for every address (`all`) when it races IPv4 and IPv6, else for one.
  const lookup = (host: string, options: { family?: number | string; all?: boolean }, cb: LookupCallback) => {
    check(host).then((checked) => {
      const family = Number(String(options.family ?? '').replace('IPv', '')) || 0;
      const usable = family ? checked.filter((a) => a.family === family) : checked;
      const first = usable[0];
      if (!first) return cb(new Error('the name has no address of the family asked for'));
      if (options.all) cb(null, usable);
      else cb(null, first.address, first.family);
    }, cb);
  };
  return ({ url, body, headers, signal }) =>
    new Promise<number>((resolve, reject) => {
      const target = new URL(url);
      const bytes = new TextEncoder().encode(body);
      const request = (target.protocol === 'https:' ? node.https : node.http).request(
        target,
        {
          method: 'POST',
          headers: { ...headers, 'content-length': String(bytes.length) },
          // A fresh connection per attempt, closed once the status is read: no pooled socket
          // outlives the check that opened it.
          agent: false,
          signal,
          lookup,
        },
        (response) => {
          resolve(response.statusCode ?? 0);
          response.destroy();
        },
      );
      request.on('error', reject);
      request.end(bytes);
    });
}
