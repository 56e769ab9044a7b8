import { createHash, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { type LocalServer, localServer } from '../balance-servers.js';

/**
 * GitHub's OAuth app endpoints as its documentation describes them
 * (docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps), on one local
 * server: the web flow under `url` (GitHub's https://github.com) and the REST API under `apiUrl`
 * (GitHub Enterprise Server's /api/v3 layout; GitHub's https://api.github.com).
 */

export interface GitHubEmail {
  email: string;
  primary: boolean;
  verified: boolean;
  visibility: 'public' | 'private' | null;
}

/** A GitHub account: its numeric id is what stays; the login and the emails may change. */
export interface GitHubUser {
  id: number;
  login: string;
  name: string | null;
  /** The public profile email (null when none is public). */
  email: string | null;
  emails: GitHubEmail[];
}

export interface GitHubOAuthApp {
  client_id: string;
  client_secret: string;
}

export interface GitHubServer {
  url: string;
  apiUrl: string;
  /** The accounts by id; change their login, name or emails between sign-ins as GitHub's users do. */
  users: Map<number, GitHubUser>;
  /** When set, the user refuses on GitHub's authorize page: `error=access_denied` comes back. */
  deny: boolean;
  /** Follows the authorization URL as the user with this `id` and returns the redirect back, not followed. */
  signInAs(authorizationUrl: string | URL, id: number): Promise<URL>;
  /** The query of each authorize request, in order. */
  authorizeRequests: URLSearchParams[];
  /** Access token requests, and of them those GitHub answered with an error. */
  tokenRequests(): number;
  tokenErrors: string[];
  userRequests(): number;
  emailRequests(): number;
  server: LocalServer;
  close(): Promise<void>;
}

interface IssuedCode {
  userId: number;
  client_id: string;
  redirect_uri: string | null;
  scope: string;
  code_challenge: string | null;
  used: boolean;
}

export async function startGitHubServer(
  app: GitHubOAuthApp,
  users: GitHubUser[] = [],
): Promise<GitHubServer> {
  const codes = new Map<string, IssuedCode>();
  const tokens = new Map<string, { userId: number; scopes: string[] }>();
  const authorizeRequests: URLSearchParams[] = [];
  const tokenErrors: string[] = [];
  let signingIn: number | null = null;

  const server = await localServer(async (req, res, raw) => {
    const url = new URL(req.path, 'http://x');
    const route = `${req.method} ${url.pathname}`;
    if (route === 'GET /login/oauth/authorize') return authorize(url.searchParams, res);
    if (route === 'POST /login/oauth/access_token')
      return accessToken(new URLSearchParams(req.body), raw.headers, res);
    if (route === 'GET /api/v3/user' || route === 'GET /api/v3/user/emails') {
      // "All API requests must include a valid User-Agent header."
      if (!raw.headers['user-agent'])
        return send(res, 403, { message: 'Request forbidden by administrative rules.' });
      const token = bearer(raw.headers.authorization);
      if (!token) return send(res, 401, { message: 'Requires authentication', status: '401' });
      const user = gh.users.get(token.userId);
      if (!user) return send(res, 401, { message: 'Bad credentials', status: '401' });
      if (url.pathname === '/api/v3/user') {
        const { id, login, name, email } = user;
        return send(res, 200, { login, id, node_id: `U_${id}`, type: 'User', name, email });
      }
      // GET /user/emails needs the user:email (or user) scope; GitHub answers 404 without it.
      if (!token.scopes.includes('user:email') && !token.scopes.includes('user'))
        return send(res, 404, { message: 'Not Found', status: '404' });
      return send(res, 200, user.emails);
    }
    send(res, 404, { message: 'Not Found' });
  });

  function bearer(authorization: string | undefined) {
    const m = /^(?:Bearer|token) (\S+)$/i.exec(authorization ?? '');
    return m ? tokens.get(m[1]!) : undefined;
  }

  function authorize(q: URLSearchParams, res: ServerResponse) {
    authorizeRequests.push(q);
    const redirect = q.get('redirect_uri');
    if (q.get('client_id') !== app.client_id || !redirect) return send(res, 404, { message: 'Not Found' });
    const back = new URL(redirect);
    if (gh.deny) {
      back.searchParams.set('error', 'access_denied');
      back.searchParams.set('error_description', 'The user has denied your application access.');
      back.searchParams.set(
        'error_uri',
        'https://docs.github.com/apps/troubleshooting-authorization-requests',
      );
    } else {
      if (signingIn === null) return send(res, 401, { message: 'not signed in on the test GitHub' });
      if (q.has('code_challenge') && q.get('code_challenge_method') !== 'S256')
        return send(res, 400, { message: 'code_challenge_method must be S256' });
      const code = randomBytes(10).toString('hex');
      codes.set(code, {
        userId: signingIn,
        client_id: app.client_id,
        redirect_uri: redirect,
        scope: q.get('scope') ?? '',
        code_challenge: q.get('code_challenge'),
        used: false,
      });
      back.searchParams.set('code', code);
    }
    const state = q.get('state');
    if (state !== null) back.searchParams.set('state', state);
    res.writeHead(302, { location: back.href }).end();
  }

  function accessToken(form: URLSearchParams, headers: Record<string, unknown>, res: ServerResponse) {
    const json = String(headers.accept ?? '').includes('application/json');
    // GitHub answers its token errors with 200 and an `error` field.
    const refuse = (error: string, error_description: string) => {
      tokenErrors.push(error);
      const body = {
        error,
        error_description,
        error_uri: `https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors/#${error}`,
      };
      return json ? send(res, 200, body) : form200(res, body);
    };
    // The client may authenticate in the body or with HTTP Basic.
    let { client_id, client_secret } = {
      client_id: form.get('client_id'),
      client_secret: form.get('client_secret'),
    };
    const basic = /^Basic (\S+)$/.exec(String(headers.authorization ?? ''));
    if (basic) {
      const [id, secret] = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':');
      client_id = decodeURIComponent(id ?? '');
      client_secret = decodeURIComponent(secret ?? '');
    }
    if (client_id !== app.client_id || client_secret !== app.client_secret)
      return refuse(
        'incorrect_client_credentials',
        'The client_id and/or client_secret passed are incorrect.',
      );
    const issued = codes.get(form.get('code') ?? '');
    if (!issued || issued.used || issued.client_id !== client_id)
      return refuse('bad_verification_code', 'The code passed is incorrect or expired.');
    issued.used = true;
    const redirect = form.get('redirect_uri');
    if (redirect !== null && redirect !== issued.redirect_uri)
      return refuse(
        'redirect_uri_mismatch',
        'The redirect_uri MUST match the registered callback URL for this application.',
      );
    if (issued.code_challenge !== null) {
      const verifier = form.get('code_verifier') ?? '';
      if (createHash('sha256').update(verifier).digest('base64url') !== issued.code_challenge)
        return refuse('bad_verification_code', 'The code_verifier does not match the code_challenge.');
    }
    const access_token = `gho_${randomBytes(18).toString('base64url')}`;
    const scopes = issued.scope.split(/[\s,]+/).filter(Boolean);
    tokens.set(access_token, { userId: issued.userId, scopes });
    // GitHub lists the granted scopes comma-separated.
    const body = { access_token, scope: scopes.join(','), token_type: 'bearer' };
    return json ? send(res, 200, body) : form200(res, body);
  }

  const count = (path: string) => server.requests.filter((r) => r.path.split('?')[0] === path).length;
  const gh: GitHubServer = {
    url: server.url,
    apiUrl: `${server.url}/api/v3`,
    users: new Map(users.map((u) => [u.id, u])),
    deny: false,
    async signInAs(authorizationUrl, id) {
      signingIn = id;
      try {
        const res = await fetch(authorizationUrl, { redirect: 'manual' });
        const location = res.headers.get('location');
        if (!location) throw new Error(`GitHub answered ${res.status}: ${await res.text()}`);
        return new URL(location);
      } finally {
        signingIn = null;
      }
    },
    authorizeRequests,
    tokenRequests: () => count('/login/oauth/access_token'),
    tokenErrors,
    userRequests: () => count('/api/v3/user'),
    emailRequests: () => count('/api/v3/user/emails'),
    server,
    close: () => server.close(),
  };
  return gh;
}

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

function form200(res: ServerResponse, body: Record<string, string>) {
  res.writeHead(200, { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' });
  res.end(new URLSearchParams(body).toString());
}
