import { latchkeyHandlers } from '@latchkey/next';
import { getLatchkey } from '@/lib/latchkey.js';

// Latchkey's /v1 API at /api/v1/…; getLatchkey runs on the first request, not during `next build`.
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = latchkeyHandlers(getLatchkey);
