import type { HttpApp } from './env.js';

export interface RouteInfo {
  /** `METHOD /v1/path/{param}`, as in the OpenAPI document and in rate-limit rules. */
  key: string;
  /** The route takes the App's public token (so browsers may call it). */
  publicToken: boolean;
}

/**
 * Which documented route a request is for, read from the OpenAPI registry the first time it is
 * asked (every route is registered by then), so a route added later needs no entry anywhere.
 */
export function routeTable(app: HttpApp): (method: string, path: string) => RouteInfo | undefined {
  let table: Array<RouteInfo & { method: string; pattern: RegExp }> | undefined;
  return (method, path) => {
    table ??= app.openAPIRegistry.definitions.flatMap((d) => {
      if (d.type !== 'route') return [];
      const { method: m, path: p, security } = d.route;
      return [
        {
          method: m.toUpperCase(),
          key: `${m.toUpperCase()} ${p}`,
          pattern: new RegExp(`^${p.replace(/[.+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
          publicToken: (security ?? []).some((s) => 'publicToken' in s),
        },
      ];
    });
    const upper = method.toUpperCase();
    const found = table.find((r) => r.method === upper && r.pattern.test(path));
    return found && { key: found.key, publicToken: found.publicToken };
  };
}
