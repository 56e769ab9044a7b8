'use client';

import { LatchkeyProvider, useOrganizationSwitch } from '@latchkey/react';
import { useRouter } from 'next/navigation.js';

interface Listed {
  organization_id: string;
  name: string;
}

/**
 * Switching organization trades the session for one scoped to the chosen organization: the
 * client keeps the new one (localStorage, as the home page's) and the route handlers set its
 * cookies, so the server render that follows reads the new organization and roles.
 */
export function OrganizationSwitcher(props: {
  publicToken: string;
  organizations: Listed[];
  current: string | null;
}) {
  return (
    <LatchkeyProvider options={{ publicToken: props.publicToken, baseUrl: '/api', session: 'localStorage' }}>
      <Switcher organizations={props.organizations} current={props.current} />
    </LatchkeyProvider>
  );
}

function Switcher({ organizations, current }: { organizations: Listed[]; current: string | null }) {
  const organization = useOrganizationSwitch();
  const router = useRouter();
  const switchTo = async (organizationId: string) => {
    // The route handlers set the new session's cookies; a fresh server render reads them.
    if (await organization.switchTo(organizationId)) router.refresh();
  };
  return (
    <section>
      <ul>
        {organizations.map((o) => (
          <li key={o.organization_id}>
            {o.name}{' '}
            <button
              type="button"
              id={`switch-${o.organization_id}`}
              disabled={o.organization_id === current}
              onClick={() => void switchTo(o.organization_id)}
            >
              {o.organization_id === current ? 'Current' : 'Switch'}
            </button>
          </li>
        ))}
      </ul>
      {organization.error && (
        <p id="switch-error">
          {(organization.error as { error_type?: string }).error_type ?? organization.error.message}
        </p>
      )}
    </section>
  );
}
