import { getDemoApp } from '@/lib/latchkey.js';

// The demo App's id and public token (both public, like its JWKS; the home page hands the same
// to the browser), for proxy.ts: the demo App is made at runtime. A real app knows them from its
// configuration instead.
export async function GET() {
  return Response.json(await getDemoApp());
}
