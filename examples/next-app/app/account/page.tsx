import { getSession } from '@latchkey/next';
import { headers } from 'next/headers.js';
import { getLatchkey } from '@/lib/latchkey.js';

// Reached only through proxy.ts, which has checked the session JWT with the App's public keys; the
// server component reads the session again (in process, jwt mode) to know who is signed in.
export default async function Account() {
  const auth = await getSession(getLatchkey, { headers: await headers() }, { cookies: true });
  return (
    <main>
      <h1>Account</h1>
      <p>
        Signed in as <code id="user-id">{auth?.user_id ?? 'nobody'}</code>
      </p>
    </main>
  );
}
