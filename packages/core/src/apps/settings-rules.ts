import { domainProblem } from '../shared/hostnames.js';
import { isPublicHost } from '../shared/public-host.js';
import { hostAndPortProblem, webUrlProblem } from '../shared/web-url.js';
import type { AppSettings } from './schema.js';
import { SETTINGS_LIMITS as L } from './settings-limits.js';

export interface SettingsProblem {
  path: Array<string | number>;
  message: string;
}

/**
 * The first way a settings document breaks the rules for writing it, or undefined. These rules
 * came after documents were first stored, so they are not part of the schema every read parses:
 * an App whose stored settings break one still loads, and is told which field to fix when it
 * next writes.
 */
export function settingsWriteProblem(settings: AppSettings): SettingsProblem | undefined {
  return problems(settings).next().value ?? undefined;
}

function* problems(s: AppSettings): Generator<SettingsProblem> {
  const redirects = s.redirect_urls;
  for (const list of ['login', 'signup', 'invite'] as const) {
    yield* tooMany(['redirect_urls', list], redirects[list].length, L.redirectUrls);
    // An entry ending in `/*` (any path below) is checked as it stands: `*` in a path is harmless.
    for (const [i, url] of redirects[list].entries())
      yield* found(['redirect_urls', list, i], webUrlProblem(url));
  }
  for (const key of ['default_login', 'default_signup'] as const) {
    const url = redirects[key];
    if (url !== undefined) yield* found(['redirect_urls', key], defaultRedirectProblem(url));
  }

  const { rp_name, allowed_domains } = s.webauthn;
  if (rp_name !== undefined && rp_name.length > L.rpNameChars)
    yield { path: ['webauthn', 'rp_name'], message: `at most ${L.rpNameChars} characters` };
  yield* tooMany(['webauthn', 'allowed_domains'], allowed_domains.length, L.webauthnDomains);
  for (const [i, domain] of allowed_domains.entries())
    yield* found(['webauthn', 'allowed_domains', i], domainProblem(domain));

  for (const [i, origin] of s.cors.allowed_origins.entries())
    yield* found(['cors', 'allowed_origins', i], webUrlProblem(origin));

  yield* found(['wallet_auth', 'domain'], hostAndPortProblem(s.wallet_auth.domain));
  if (s.wallet_auth.uri !== undefined) yield* found(['wallet_auth', 'uri'], webUrlProblem(s.wallet_auth.uri));

  for (const [id, provider] of Object.entries(s.oauth.providers)) {
    const urls = [
      ['issuer', provider.type === 'oidc' ? provider.issuer : undefined],
      ['base_url', provider.type === 'github' ? provider.base_url : undefined],
      ['api_url', provider.type === 'github' ? provider.api_url : undefined],
    ] as const;
    for (const [field, url] of urls)
      if (url !== undefined) yield* found(['oauth', 'providers', id, field], providerUrlProblem(url));
  }

  const routes = Object.keys(s.rate_limits.routes);
  yield* tooMany(['rate_limits', 'routes'], routes.length, L.routeRules);
  for (const route of routes)
    if (route.length > L.routeKeyChars)
      yield {
        path: ['rate_limits', 'routes', route],
        message: `a route has at most ${L.routeKeyChars} characters`,
      };
}

/**
 * A provider is reached over https; plain http only on the host's own machine or network (a
 * provider in a test), and even then only where the operator allows it (`oauth.allowInsecureIssuers`).
 */
function providerUrlProblem(raw: string): string | undefined {
  const url = new URL(raw);
  if (url.username || url.password || url.hash || url.search) return 'no credentials, query or fragment';
  if (url.protocol === 'http:' && isPublicHost(url.hostname))
    return 'https (plain http only on a loopback or private address)';
  return undefined;
}

/** A default is where links lead when a request names none: one URL, never a `/*` pattern. */
const defaultRedirectProblem = (url: string) =>
  url.endsWith('/*')
    ? 'a default redirect URL is one URL; the /* wildcard belongs in the allowed lists'
    : webUrlProblem(url);

function* tooMany(path: SettingsProblem['path'], count: number, max: number): Generator<SettingsProblem> {
  if (count > max) yield { path, message: `at most ${max} entries` };
}

function* found(path: SettingsProblem['path'], message: string | undefined): Generator<SettingsProblem> {
  if (message !== undefined) yield { path, message };
}
