import { getLatchkey } from '@/lib/latchkey.js';

// The demo App's id (public, like its JWKS), for middleware.ts: the demo App is made at runtime.
// A real app knows its App id from its configuration instead.
export async function GET() {
  const [app] = await (await getLatchkey()).apps.list();
  return Response.json({ app_id: app?.id ?? null });
}
