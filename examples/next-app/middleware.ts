import { verifyEdgeSession } from '@latchkey/next/edge';
import { type NextRequest, NextResponse } from 'next/server.js';

// Runs on the edge runtime: the session JWT (bearer, or the cookie latchkeyHandlers sets) is
// verified with the App's public keys only. No session: a redirect to the home page.
export const config = { matcher: ['/account/:path*'] };

let appId: Promise<string> | undefined;

/** The demo App's id, asked of the app once (a real app has it in its configuration). */
function demoAppId(request: NextRequest): Promise<string> {
  appId ??= fetch(new URL('/api/demo-app', request.url))
    .then((res) => res.json() as Promise<{ app_id: string }>)
    .then((body) => body.app_id)
    .catch((err: unknown) => {
      appId = undefined;
      throw err;
    });
  return appId;
}

export async function middleware(request: NextRequest) {
  const app = await demoAppId(request);
  const { session } = await verifyEdgeSession(request, {
    appId: app,
    jwksUrl: new URL(`/api/v1/auth/sessions/jwks/${app}`, request.url),
    cookies: true,
  });
  if (session) return NextResponse.next();
  const home = new URL('/', request.url);
  home.searchParams.set('signin', 'required');
  return NextResponse.redirect(home);
}
