import { getSession } from '@latchkey/next';
import { headers } from 'next/headers.js';
import { getDemoApp, getLatchkey } from '@/lib/latchkey.js';
import { OrganizationSwitcher } from './switcher.js';

export const dynamic = 'force-dynamic';

// The signed-in user's organizations, listed on the server with the instance (a host's own code
// may, as it holds the secret), and the one the session is scoped to, read from its claims.
export default async function Organizations() {
  const auth = await getSession(getLatchkey, { headers: await headers() }, { cookies: true });
  if (!auth)
    return (
      <main>
        <h1>Organizations</h1>
        <p id="organizations-status">signed-out</p>
        <a href="/">Sign in first</a>
      </main>
    );
  const latchkey = await getLatchkey();
  const { organizations } = await latchkey.organizations.list(auth.app_id, { user_id: auth.user_id });
  const { public_token } = await getDemoApp();
  return (
    <main>
      <h1>Organizations</h1>
      <p>
        Current organization: <code id="current-organization">{auth.organization_id ?? 'none'}</code>
        {auth.roles && (
          <>
            {' '}
            as <code id="current-roles">{auth.roles.join(' ')}</code>
          </>
        )}
      </p>
      <OrganizationSwitcher
        publicToken={public_token}
        organizations={organizations.map(({ organization_id, name }) => ({ organization_id, name }))}
        current={auth.organization_id ?? null}
      />
      <p>
        <a href="/api/invoices">Invoices</a> (needs <code>invoices:read</code> in the current organization)
      </p>
    </main>
  );
}
