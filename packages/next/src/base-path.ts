/** `'/api/'`, `'api'` and `'/api'` all mean `/api`; `''` and `'/'` mean the site root. */
export function normalizeBasePath(basePath: string): string {
  const trimmed = basePath.trim().replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? '' : `/${trimmed}`;
}

/**
 * The path Latchkey routes on for a request path, or null when the path is outside `basePath`.
 * The match is by whole segments, so `/api` never claims `/apis/v1/health`.
 */
export function stripBasePath(pathname: string, basePath: string): string | null {
  if (basePath === '') return pathname;
  if (pathname === basePath) return '/';
  if (pathname.startsWith(`${basePath}/`)) return pathname.slice(basePath.length);
  return null;
}
