import { getDemoApp } from '@/lib/latchkey.js';
import { SessionPanel } from './session-panel.js';

// The demo App is made when the server first runs, not during `next build`: render per request.
export const dynamic = 'force-dynamic';

const createUser = `curl -X POST http://localhost:3000/api/v1/auth/users \\
  -H "Authorization: Bearer $(jq -r .secret_key .latchkey/demo-app.json)" \\
  -H 'Content-Type: application/json' \\
  -d '{"email":"ada@example.com"}'`;

export default async function Home() {
  const { public_token } = await getDemoApp();
  return (
    <main>
      <h1>Latchkey on Next.js</h1>
      <p>
        Latchkey&apos;s <code>/v1</code> API is mounted at <code>/api</code> by{' '}
        <code>app/api/[...latchkey]/route.ts</code>. Check it with <code>GET /api/v1/health</code>.
      </p>
      <p>
        The first API call creates a demo App and writes its keys (<code>app_id</code>,{' '}
        <code>secret_key</code>, <code>public_token</code>) to <code>demo-app.json</code> in{' '}
        <code>$LATCHKEY_DATA_DIR</code>, by default <code>.latchkey/</code>. Storage is in memory: a restart
        starts over with a new demo App. Email passcodes are not delivered: each is written to{' '}
        <code>outbox.jsonl</code> in the same folder.
      </p>
      <SessionPanel publicToken={public_token} />
      <p>Create a user with the secret key:</p>
      <pre>{createUser}</pre>
    </main>
  );
}
