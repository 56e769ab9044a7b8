import { verifyEdgeSession } from '@latchkey/next/edge';
import { type NextRequest, NextResponse } from 'next/server.js';

// Next 16's proxy (Node.js runtime) in front of /account. verifyEdgeSession checks the session JWT
// (bearer, or the cookie latchkeyHandlers sets) with the App's public keys, and the revoked
// sessions with the App's revocation feed: no storage, no database round trip per request. No
// session: a redirect to the home page.
export const config = { matcher: ['/account/:path*'] };

interface DemoApp {
  app_id: string;
  public_token: string;
}

let demoApp: Promise<DemoApp> | undefined;

/** The demo App's id and public token, asked of the app once (a real app has them in its configuration). */
function demoAppOf(request: NextRequest): Promise<DemoApp> {
  demoApp ??= fetch(new URL('/api/demo-app', request.url))
    .then((res) => res.json() as Promise<DemoApp>)
    .catch((err: unknown) => {
      demoApp = undefined;
      throw err;
    });
  return demoApp;
}

export async function proxy(request: NextRequest) {
  const app = await demoAppOf(request);
  const { session } = await verifyEdgeSession(request, {
    appId: app.app_id,
    jwksUrl: new URL(`/api/v1/auth/sessions/jwks/${app.app_id}`, request.url),
    cookies: true,
    // A revoked session is refused here within refreshSeconds (default 5) of its revocation,
    // instead of passing until its JWT expires.
    revocations: {
      url: new URL('/api/v1/auth/sessions/revocations', request.url),
      publicToken: app.public_token,
    },
  });
  if (session) return NextResponse.next();
  const home = new URL('/', request.url);
  home.searchParams.set('signin', 'required');
  return NextResponse.redirect(home);
}
