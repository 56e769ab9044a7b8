/** A header name as the Fetch standard accepts it: an RFC 9110 token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Names already checked, lower-cased: an API reads and writes the same dozen on every request. */
const known = new Map<string, string>();

/**
 * `name` lower-cased, as a `Headers` keys it, or undefined when it is no header name. Shared by
 * core's answer headers and the adapters' request views, which check names on every request.
 */
export function lowerHeaderName(name: string): string | undefined {
  let lower = known.get(name);
  if (lower === undefined) {
    if (!TOKEN.test(name)) return undefined;
    lower = name.toLowerCase();
    if (known.size >= 512) known.clear();
    known.set(name, lower);
  }
  return lower;
}
