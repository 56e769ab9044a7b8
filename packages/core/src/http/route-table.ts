import type { HttpApp } from './env.js';
import { POLICY_EXTENSION, type RouteClass, type RoutePolicy } from './route-policy.js';

export interface RouteInfo {
  /** `METHOD /v1/path/{param}`, as in the OpenAPI document and in rate-limit rules. */
  key: string;
  /** The route takes the App's public token (so browsers may call it). */
  publicToken: boolean;
  /** The default public-token limit the route declared; undefined for secret-key and open routes. */
  rate: RouteClass | undefined;
  /** The route's body is a form (read capped, as text), not JSON. */
  formBody: boolean;
  /** The public token may come as the `public_token` query parameter. */
  tokenInQuery: boolean;
  /** The route's window is counted with the send's windows (RoutePolicy `limitWithSend`). */
  limitWithSend: boolean;
}

/** A route served outside the OpenAPI registry (the document itself), with its policy. */
export interface UndocumentedRoute {
  method: string;
  path: string;
  policy: RoutePolicy;
}

export interface RouteLookup {
  /** Which documented route a request is for. */
  (method: string, path: string): RouteInfo | undefined;
  /** Whether some route declared `open` serves this path (any method): no API key is asked. */
  isOpen(path: string): boolean;
}

/** The policy a documented route declared with `policy()`; undefined when it declared none. */
export function declaredPolicy(route: object): RoutePolicy | undefined {
  return (route as Record<string, RoutePolicy | undefined>)[POLICY_EXTENSION];
}

/**
 * Reads every route's declared policy from the OpenAPI registry the first time it is asked
 * (every route is registered by then), so a route added later needs no entry anywhere. A route
 * that declared nothing is treated as secret-key only (and fails the route-policy test).
 */
export function routeTable(app: HttpApp, undocumented: UndocumentedRoute[] = []): RouteLookup {
  let table: Array<RouteInfo & { method: string; pattern: RegExp; open: boolean }> | undefined;
  const build = () => {
    const documented = app.openAPIRegistry.definitions.flatMap((d) =>
      d.type === 'route'
        ? [
            {
              method: d.route.method,
              path: d.route.path,
              policy: declaredPolicy(d.route) ?? { key: 'secret' },
            },
          ]
        : [],
    );
    return [...documented, ...undocumented].map(({ method, path, policy }) => ({
      method: method.toUpperCase(),
      key: `${method.toUpperCase()} ${path}`,
      pattern: new RegExp(`^${path.replace(/[.+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
      publicToken: policy.key === 'public',
      open: policy.key === 'open',
      rate: policy.key === 'public' ? policy.rate : undefined,
      formBody: policy.key === 'open' && policy.body === 'form',
      tokenInQuery: policy.key === 'public' && policy.tokenInQuery === true,
      limitWithSend: policy.key === 'public' && policy.limitWithSend === true,
    }));
  };
  // Answers for paths that name a route without parameters, remembered: those are bounded by
  // the routes themselves, and every request asks (CORS, rate limits).
  const literal = new Map<string, RouteInfo | undefined>();
  let openPatterns: RegExp[] | undefined;
  const lookup = (method: string, path: string) => {
    const memoKey = `${method} ${path}`;
    if (literal.has(memoKey)) return literal.get(memoKey);
    table ??= build();
    const upper = method.toUpperCase();
    const found = table.find((r) => r.method === upper && r.pattern.test(path));
    const info = found && {
      key: found.key,
      publicToken: found.publicToken,
      rate: found.rate,
      formBody: found.formBody,
      tokenInQuery: found.tokenInQuery,
      limitWithSend: found.limitWithSend,
    };
    if (found && !found.key.includes('{')) literal.set(memoKey, info);
    return info;
  };
  return Object.assign(lookup, {
    isOpen: (path: string) => {
      table ??= build();
      openPatterns ??= table.filter((r) => r.open).map((r) => r.pattern);
      return openPatterns.some((pattern) => pattern.test(path));
    },
  });
}
