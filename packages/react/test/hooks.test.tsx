// @vitest-environment happy-dom
import { createLatchkeyClient, type LatchkeyClientOptions } from '@latchkey/client';
import { act, cleanup, configure, fireEvent, render, waitFor, within } from '@testing-library/react';
import { getBytes, Wallet } from 'ethers';
import { Secret, TOTP } from 'otpauth';
import { StrictMode, useState } from 'react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  LatchkeyProvider,
  useMagicLink,
  useOtpSignIn,
  useSession,
  useTotp,
  useUser,
  useWalletSignIn,
} from '../src/index.js';
import { startLatchkey } from './server.js';

// The hooks in a DOM (happy-dom), rendered by React Testing Library, against a real Latchkey
// (PGlite, or Postgres with DATABASE_URL) answering in process: no mocks between the hooks and the
// server's routes.
// Two shared cores under parallel suites: a step may take seconds, never a wrong answer.
configure({ asyncUtilTimeout: 15_000 });

let server: Awaited<ReturnType<typeof startLatchkey>>;
beforeAll(async () => {
  server = await startLatchkey();
});
afterAll(() => server?.close());
afterEach(() => {
  cleanup();
  localStorage.clear();
});

const baseUrl = 'http://latchkey.test';
let tabs = 0;
/** Client options as a page would give them; `storageKey` names the "browser" the tabs share. */
const options = (storageKey: string, extra: Partial<LatchkeyClientOptions> = {}) => ({
  publicToken: server.keys.public_token,
  baseUrl,
  fetch: server.fetch,
  session: 'localStorage' as const,
  storageKey,
  ...extra,
});
const uniqueEmail = (what: string) => `${what}-${++tabs}-${Date.now()}@example.com`;

/** A page: the session line, the user's factors, and the email code form. */
function Page() {
  const session = useSession();
  const { user } = useUser();
  const otp = useOtpSignIn();
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  return (
    <main>
      <p data-testid="status">{session.status}</p>
      <p data-testid="user">{session.user_id ?? ''}</p>
      <p data-testid="factors">{user?.factors.map((f) => f.type).join(',') ?? ''}</p>
      <input aria-label="email" value={email} onChange={(e) => setEmail(e.target.value)} />
      <button type="button" onClick={() => otp.send(email)}>
        Send code
      </button>
      <input aria-label="code" value={code} onChange={(e) => setCode(e.target.value)} />
      <button type="button" onClick={() => otp.verify(code)}>
        Verify
      </button>
      <p data-testid="otp">{otp.status}</p>
      <p data-testid="otp error">
        {(otp.error as { error_type?: string } | null)?.error_type ?? otp.error?.message ?? ''}
      </p>
      <button type="button" onClick={() => session.refresh().catch(() => {})}>
        Refresh
      </button>
      <button type="button" onClick={() => session.signOut()}>
        Sign out
      </button>
    </main>
  );
}

type View = ReturnType<typeof within>;
const text = (view: View, testId: string) => view.getByTestId(testId).textContent;
const click = (view: View, name: string) => fireEvent.click(view.getByRole('button', { name }));
const type = (view: View, label: string, value: string) =>
  fireEvent.change(view.getByLabelText(label), { target: { value } });
const statusOf = (view: View, expected: string) => waitFor(() => expect(text(view, 'status')).toBe(expected));

/** Signs in through the page's form, the code read from what the server sent. */
async function signInByCode(view: View, email = uniqueEmail('otp')) {
  type(view, 'email', email);
  click(view, 'Send code');
  await waitFor(() => expect(text(view, 'otp')).toBe('code-sent'));
  type(view, 'code', server.last(email).code!);
  click(view, 'Verify');
  await waitFor(() => expect(text(view, 'otp')).toBe('signed-in'));
  await statusOf(view, 'signed-in');
  return email;
}

const mount = (key: string, extra: Partial<LatchkeyClientOptions> = {}) =>
  within(
    render(
      <LatchkeyProvider options={options(key, extra)}>
        <Page />
      </LatchkeyProvider>,
    ).container,
  );

describe('@latchkey/react against a real Latchkey', () => {
  it('email code: signed-out, then signed-in with the user and factor; a session revoked on the server turns signed-out on refresh', async () => {
    const view = mount('otp');
    await statusOf(view, 'signed-out');
    await signInByCode(view);
    const held = JSON.parse(localStorage.getItem('otp')!);
    expect(text(view, 'user')).toBe(held.user_id);
    expect(text(view, 'factors')).toBe('otp');
    // The server knows the session the hook shows.
    const live = await server.latchkey.sessions.authenticate(server.appId, {
      session_token: held.session_token,
    });
    expect(live.user_id).toBe(held.user_id);

    await server.latchkey.sessions.revoke(server.appId, { session_token: held.session_token });
    click(view, 'Refresh');
    await statusOf(view, 'signed-out');
    expect(text(view, 'user')).toBe('');
    expect(localStorage.getItem('otp')).toBeNull();
  });

  it('sign-out revokes on the server; a wrong code and a verify before any send are errors in the hook, not throws', async () => {
    const view = mount('signout');
    await statusOf(view, 'signed-out');
    click(view, 'Verify');
    await waitFor(() => expect(text(view, 'otp')).toBe('error'));
    expect(text(view, 'otp error')).toMatch(/Send a code first/);

    const email = uniqueEmail('wrong');
    type(view, 'email', email);
    click(view, 'Send code');
    await waitFor(() => expect(text(view, 'otp')).toBe('code-sent'));
    const right = server.last(email).code!;
    type(view, 'code', right === '000000' ? '111111' : '000000');
    click(view, 'Verify');
    await waitFor(() => expect(text(view, 'otp')).toBe('error'));
    expect(text(view, 'otp error')).toBe('otp_code_invalid');
    expect(text(view, 'status')).toBe('signed-out');

    type(view, 'code', right);
    click(view, 'Verify');
    await statusOf(view, 'signed-in');
    const { session_token } = JSON.parse(localStorage.getItem('signout')!);
    click(view, 'Sign out');
    await statusOf(view, 'signed-out');
    await expect(
      server.latchkey.sessions.authenticate(server.appId, { session_token }),
    ).rejects.toMatchObject({ errorType: 'session_not_found' });
  });

  it('cross-tab: two tabs on one storage; a sign-in and a sign-out in one show in the other', async () => {
    const [first, second] = [mount('tabs'), mount('tabs')];
    await statusOf(first, 'signed-out');
    await statusOf(second, 'signed-out');
    await signInByCode(first);
    await statusOf(second, 'signed-in');
    expect(text(second, 'user')).toBe(text(first, 'user'));
    // The other tab holds the session itself: its refresh is its own call to the server.
    click(second, 'Refresh');
    await waitFor(() => expect(JSON.parse(localStorage.getItem('tabs')!).session_jwt).toBeTruthy());
    click(second, 'Sign out');
    await statusOf(first, 'signed-out');
    await statusOf(second, 'signed-out');
    // A memory session is the tab's own: nothing crosses.
    const [mine, other] = [mount('memory', { session: 'memory' }), mount('memory', { session: 'memory' })];
    await signInByCode(mine);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(text(other, 'status')).toBe('signed-out');
  });

  it('a session kept from an earlier visit is confirmed on mount: revoked meanwhile, it turns signed-out (checkSession: false keeps it)', async () => {
    const view = mount('earlier');
    await statusOf(view, 'signed-out');
    await signInByCode(view);
    const kept = localStorage.getItem('earlier')!;
    const { session_token } = JSON.parse(kept);
    cleanup();
    await server.latchkey.sessions.revoke(server.appId, { session_token });

    // Without the check the held session is believed: that is what the check is for.
    localStorage.setItem('earlier', kept);
    const unchecked = within(
      render(
        <LatchkeyProvider options={options('earlier')} checkSession={false}>
          <Page />
        </LatchkeyProvider>,
      ).container,
    );
    expect(text(unchecked, 'status')).toBe('signed-in');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(text(unchecked, 'status')).toBe('signed-in');
    cleanup();

    localStorage.setItem('earlier', kept);
    const reloaded = mount('earlier');
    await statusOf(reloaded, 'signed-out');
  });

  it('wallet: an Ethereum sign-in signed by a real key (ethers) through an EIP-1193 provider', async () => {
    const wallet = Wallet.createRandom();
    const provider = {
      request: async ({ method, params }: { method: string; params?: unknown[] }) => {
        if (method === 'eth_requestAccounts') return [wallet.address];
        if (method === 'personal_sign') return wallet.signMessage(getBytes(params![0] as string));
        throw new Error(`unexpected ${method}`);
      },
    };
    function WalletPage() {
      const session = useSession();
      const sign = useWalletSignIn();
      return (
        <>
          <p data-testid="status">{session.status}</p>
          <p data-testid="factors">{session.session?.session?.factors.map((f) => f.type).join(',')}</p>
          <button type="button" onClick={() => sign.signInWithEthereum(provider)}>
            Sign in with Ethereum
          </button>
          <p data-testid="wallet">{sign.status}</p>
        </>
      );
    }
    const view = within(
      render(
        <LatchkeyProvider options={options('wallet')}>
          <WalletPage />
        </LatchkeyProvider>,
      ).container,
    );
    await statusOf(view, 'signed-out');
    click(view, 'Sign in with Ethereum');
    await statusOf(view, 'signed-in');
    expect(text(view, 'wallet')).toBe('signed-in');
    expect(text(view, 'factors')).toBe('signature_challenge');
  });

  it('magic link: the landing page signs in once from the URL (StrictMode runs effects twice) and drops the token', async () => {
    const client = createLatchkeyClient(options('link'));
    const email = uniqueEmail('link');
    await client.magicLinks.email.loginOrCreate({ email });
    const token = new URL(server.last(email).url!).searchParams.get('token')!;
    expect(token).toBeTruthy();
    history.replaceState(null, '', `/landing?token=${encodeURIComponent(token)}&next=home`);
    const seen: string[] = [];
    function Landing() {
      const link = useMagicLink({ fromUrl: true });
      const session = useSession();
      seen.push(link.status);
      return (
        <>
          <p data-testid="status">{session.status}</p>
          <p data-testid="link">{link.status}</p>
          <p data-testid="link error">{link.error?.message ?? ''}</p>
        </>
      );
    }
    const view = within(
      render(
        <StrictMode>
          <LatchkeyProvider client={client}>
            <Landing />
          </LatchkeyProvider>
        </StrictMode>,
      ).container,
    );
    await waitFor(() => expect(text(view, 'link')).toBe('signed-in'));
    await statusOf(view, 'signed-in');
    expect(seen).not.toContain('error');
    expect(location.search).toBe('?next=home');
    client.close();
  });

  it('TOTP through the host: enrol, activate with a code from otpauth, authenticate into the session', async () => {
    function Totp() {
      const totp = useTotp();
      const session = useSession();
      const [code, setCode] = useState('');
      return (
        <>
          <p data-testid="session factors">
            {session.session?.session?.factors.map((f) => f.type).join(',')}
          </p>
          <button type="button" onClick={() => totp.enrol()}>
            Enrol
          </button>
          <p data-testid="secret">{totp.enrolment?.secret ?? ''}</p>
          <input aria-label="totp code" value={code} onChange={(e) => setCode(e.target.value)} />
          <button type="button" onClick={() => totp.verify(code)}>
            Activate
          </button>
          <button type="button" onClick={() => totp.authenticate(code)}>
            Authenticate
          </button>
          <p data-testid="totp">{totp.status}</p>
        </>
      );
    }
    const view = within(
      render(
        <LatchkeyProvider options={options('totp')}>
          <Page />
          <Totp />
        </LatchkeyProvider>,
      ).container,
    );
    await statusOf(view, 'signed-out');
    await signInByCode(view);
    click(view, 'Enrol');
    await waitFor(() => expect(text(view, 'totp')).toBe('enrolled'));
    const totp = new TOTP({ secret: Secret.fromBase32(text(view, 'secret')!) });
    type(view, 'totp code', totp.generate());
    click(view, 'Activate');
    await waitFor(() => expect(text(view, 'totp')).toBe('active'));
    // The next period's code: one code is accepted once.
    type(view, 'totp code', totp.generate({ timestamp: Date.now() + 30_000 }));
    click(view, 'Authenticate');
    await waitFor(() => expect(text(view, 'totp')).toBe('signed-in'));
    await waitFor(() => expect(text(view, 'session factors')).toBe('otp,totp'));
  });

  it('useUser(load) asks the host for more, once per user', async () => {
    const asked: string[] = [];
    function Profile() {
      const { status, user } = useUser(async (session) => {
        asked.push(session.user_id);
        return { name: `user ${session.user_id.slice(-4)}` };
      });
      return (
        <p data-testid="profile">
          {status}:{user?.name ?? ''}
        </p>
      );
    }
    const view = within(
      render(
        <LatchkeyProvider options={options('profile')}>
          <Page />
          <Profile />
        </LatchkeyProvider>,
      ).container,
    );
    await statusOf(view, 'signed-out');
    expect(text(view, 'profile')).toBe('signed-out:');
    await signInByCode(view);
    const userId = text(view, 'user')!;
    await waitFor(() => expect(text(view, 'profile')).toBe(`signed-in:user ${userId.slice(-4)}`));
    click(view, 'Refresh');
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    expect(asked).toEqual([userId]);
  });
});
