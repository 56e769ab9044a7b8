import type { TotpEnrolment } from '@latchkey/client';
import { useCallback, useMemo, useState } from 'react';
import { useStepClient } from '../context.js';
import { useCeremony } from '../use-ceremony.js';

export type TotpStep = 'enrolling' | 'enrolled' | 'verifying' | 'active' | 'authenticating' | 'signed-in';

/**
 * An authenticator app, through the host's TOTP routes (the client's `totpPath`): `enrol()` makes
 * a pending TOTP and keeps the `enrolment` to show (QR code, secret, recovery codes), `verify(code)`
 * activates it; `authenticate(code)` or `recover(recoveryCode)` add the factor to the session.
 */
export function useTotp() {
  const client = useStepClient('useTotp');
  const { state, run, reset } = useCeremony<TotpStep>();
  const [enrolment, setEnrolment] = useState<TotpEnrolment | null>(null);
  const enrol = useCallback(
    () =>
      run('enrolling', 'enrolled', async () => {
        const made = await client().totp.enrol();
        setEnrolment(made);
        return made;
      }),
    [client, run],
  );
  const verify = useCallback(
    (code: string) => run('verifying', 'active', () => client().totp.verify(code)),
    [client, run],
  );
  const authenticate = useCallback(
    (code: string) => run('authenticating', 'signed-in', () => client().totp.authenticate(code)),
    [client, run],
  );
  const recover = useCallback(
    (recoveryCode: string) => run('authenticating', 'signed-in', () => client().totp.recover(recoveryCode)),
    [client, run],
  );
  return useMemo(
    () => ({ ...state, enrolment, enrol, verify, authenticate, recover, reset }),
    [state, enrolment, enrol, verify, authenticate, recover, reset],
  );
}
