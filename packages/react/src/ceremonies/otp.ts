import type { BodyOf } from '@latchkey/client';
import { useCallback, useMemo, useRef, useState } from 'react';
import { useStepClient } from '../context.js';
import { useCeremony } from '../use-ceremony.js';

type EmailBody = BodyOf<'post /v1/auth/otps/email/login_or_create'>;
type SmsBody = BodyOf<'post /v1/auth/otps/sms/login_or_create'>;

export type OtpStep = 'sending' | 'code-sent' | 'verifying' | 'signed-in';

/**
 * A one-time passcode sign-in: `send(email)` (or a phone number with `channel: 'sms'`) creates the
 * user if new and sends the code; `verify(code)` checks it against what `send` answered and signs
 * in. `useSession` turns `signed-in` with it.
 */
export function useOtpSignIn(options: { channel?: 'email' | 'sms' } = {}) {
  const client = useStepClient('useOtpSignIn');
  const { state, run, reset } = useCeremony<OtpStep>();
  const [methodId, setMethodId] = useState<string | null>(null);
  const method = useRef<string | null>(null);
  const channel = options.channel ?? 'email';

  const send = useCallback(
    (to: string | EmailBody | SmsBody) =>
      run('sending', 'code-sent', async () => {
        const sent =
          channel === 'sms'
            ? await client().otps.sms.loginOrCreate(
                typeof to === 'string' ? { phone_number: to } : (to as SmsBody),
              )
            : await client().otps.email.loginOrCreate(
                typeof to === 'string' ? { email: to } : (to as EmailBody),
              );
        method.current = sent.method_id;
        setMethodId(sent.method_id);
        return sent;
      }),
    [client, run, channel],
  );

  const verify = useCallback(
    (otp: string) =>
      run('verifying', 'signed-in', async () => {
        if (!method.current) throw new Error('Send a code first: verify checks the code that send sent.');
        return client().otps.verify({ method_id: method.current, otp });
      }),
    [client, run],
  );

  return useMemo(() => ({ ...state, methodId, send, verify, reset }), [state, methodId, send, verify, reset]);
}
