import { latchkeyHandlers } from '@latchkey/next';
import { getLatchkey } from '@/lib/latchkey.js';

// Latchkey's /v1 API at /api/v1/…; getLatchkey runs on the first request, not during `next build`.
// Sign-ins and sessions/authenticate set the session cookies; sessions/revoke clears them.
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = latchkeyHandlers(getLatchkey, { cookies: true });
