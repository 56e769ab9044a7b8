import type { Logger } from '../logging/logger.js';

let warned = false;

/**
 * One log line per process for the operator: a cookie write from the host's own https origin
 * reached it as http, so it sits behind a TLS proxy it does not trust. Without it the only
 * trace is every such request's 403.
 */
export function warnUntrustedProxy(logger: Logger, ownOrigin: string): void {
  if (warned) return;
  warned = true;
  const seenAs = ownOrigin.replace(/^http:/, 'https:');
  logger.warn(
    { origin: seenAs, reached_as: ownOrigin, error_type: 'https_behind_untrusted_proxy' },
    `latchkey: a request signed in by cookie came from ${seenAs} but reached this host as ${ownOrigin}: it sits behind a TLS proxy it does not trust, so cookie requests that change state are refused (https_behind_untrusted_proxy). With Express, set app.set('trust proxy', …) to the proxy's address or hop count (docs/host-sessions.md, "Behind a proxy").`,
  );
}
