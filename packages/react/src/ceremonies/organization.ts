import { useCallback, useMemo } from 'react';
import { useStepClient } from '../context.js';
import { useCeremony } from '../use-ceremony.js';

export type OrganizationStep = 'switching' | 'switched';

/**
 * An organization switcher's step: `switchTo(organizationId)` trades the session for one scoped to
 * that organization (`client.session.switchOrganization`), which `useSession` then reports. A user who
 * is no member gets `error` (403 `not_a_member`) and keeps the session they had.
 */
export function useOrganizationSwitch() {
  const client = useStepClient('useOrganizationSwitch');
  const { state, run, reset } = useCeremony<OrganizationStep>();
  const switchTo = useCallback(
    (organizationId: string) =>
      run('switching', 'switched', () => client().session.switchOrganization(organizationId)),
    [client, run],
  );
  return useMemo(() => ({ ...state, switchTo, reset }), [state, switchTo, reset]);
}
