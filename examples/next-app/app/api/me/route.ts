import { withSession } from '@latchkey/next';
import { getLatchkey } from '@/lib/latchkey.js';

// A host route behind the session check. Token mode reads storage on each request, so a revoked
// session is refused at once; without a live session the answer is 401 in Latchkey's error shape.
export const GET = withSession(
  getLatchkey,
  (_request, auth) => Response.json({ user_id: auth.user_id, session_id: auth.session_id }),
  { mode: 'token', cookies: true },
);
