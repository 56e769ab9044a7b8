'use client';

import { LatchkeyProvider, useOtpSignIn, useSession } from '@latchkey/react';
import { type FormEvent, useState } from 'react';

/**
 * The browser side of the example: `@latchkey/react` over the API this app mounts at `/api`. The
 * client keeps the session in localStorage, so a reload is still signed in; the route handlers
 * also set the session cookies, which proxy.ts and the account page read. (Cookie-only
 * `session: 'none'` cannot come back after a reload: `sessions/authenticate` takes its credential
 * from the body, never from the cookies.)
 */
export function SessionPanel({ publicToken }: { publicToken: string }) {
  return (
    <LatchkeyProvider options={{ publicToken, baseUrl: '/api', session: 'localStorage' }}>
      <SessionState />
    </LatchkeyProvider>
  );
}

function SessionState() {
  const session = useSession();
  return (
    <section>
      <h2>Session</h2>
      <p>
        Status: <code id="session-status">{session.status}</code>
        {session.user_id && (
          <>
            {' '}
            as <code id="session-user">{session.user_id}</code>
          </>
        )}
      </p>
      {session.status === 'signed-in' && (
        <p>
          <a href="/account">Account page</a> <a href="/organizations">Organizations</a>{' '}
          <button type="button" id="sign-out" onClick={() => session.signOut().catch(() => undefined)}>
            Sign out
          </button>
        </p>
      )}
      {session.status === 'signed-out' && <EmailCodeSignIn />}
    </section>
  );
}

/** Sign-in by email passcode: the code is written to `outbox.jsonl` in the data directory. */
function EmailCodeSignIn() {
  const otp = useOtpSignIn();
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const busy = otp.status === 'sending' || otp.status === 'verifying';
  const send = (event: FormEvent) => {
    event.preventDefault();
    // The hooks' steps never reject: a failure shows as `otp.error`.
    void otp.send(email);
  };
  const verify = (event: FormEvent) => {
    event.preventDefault();
    void otp.verify(code);
  };
  return (
    <>
      {otp.methodId === null ? (
        <form onSubmit={send}>
          <label>
            Email{' '}
            <input
              id="email"
              type="email"
              required
              value={email}
              onChange={(e) => setEmail(e.target.value)}
            />
          </label>{' '}
          <button type="submit" id="send-code" disabled={busy}>
            Send a code
          </button>
        </form>
      ) : (
        <form onSubmit={verify}>
          <label>
            Code from <code>outbox.jsonl</code>{' '}
            <input
              id="code"
              inputMode="numeric"
              autoComplete="one-time-code"
              required
              value={code}
              onChange={(e) => setCode(e.target.value)}
            />
          </label>{' '}
          <button type="submit" id="verify-code" disabled={busy}>
            Sign in
          </button>
        </form>
      )}
      {otp.error && <p id="sign-in-error">{otp.error.message}</p>}
    </>
  );
}
