/** A path a URL parser leaves as it is: no dot segments, escapes, query or odd characters. */
export const PLAIN_PATH = /^(?:\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)+$/;

/**
 * True when Latchkey's app would route `target` (a request target relative to the router's mount
 * point) under `/v1`: the path as the Web Request's URL normalises it (dot segments, `\`), then
 * percent-decoded as Hono decodes it before routing, so `/%76%31/health` is the API's and
 * `/v1%2Fhealth` is not. A plain path, the common case, is read as it is.
 */
export function isApiPath(target: string): boolean {
  const query = target.indexOf('?');
  const path = query === -1 ? target : target.slice(0, query);
  if (PLAIN_PATH.test(path)) return underV1(path);
  // A target no URL holds (an absolute form with a bad host) is no request the API could route.
  if (!URL.canParse(target, BASE)) return false;
  return underV1(decodeEscapes(new URL(target, BASE).pathname));
}

const BASE = 'http://localhost';

const underV1 = (path: string) => path === '/v1' || path.startsWith('/v1/');

/** `decodeURI`, one run of escapes at a time, so a malformed run elsewhere leaves the rest decoded. */
const decodeEscapes = (path: string) =>
  path.includes('%')
    ? path.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
        try {
          return decodeURI(run);
        } catch {
          return run;
        }
      })
    : path;
