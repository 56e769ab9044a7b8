import type { Target } from './measure.js';
import { jsonClient, outboxTail } from './sign-in-flow.js';

type Call = (method: string, route: string, body?: unknown, key?: string) => Promise<Record<string, string>>;

interface Latchkey {
  url: string;
  publicToken: string;
  call: Call;
  /** The code or link token last sent to each address, read from the example server's outbox. */
  sent: () => Promise<Map<string, string>>;
  /** The example server's outbox file, followed by the full sign-in row. */
  outbox: string;
}

interface Peer {
  url: string;
  /** The file Better Auth's peer writes each code it would send to, as Latchkey's outbox. */
  outbox: string;
}

const post = async (url: string, body: unknown) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: 'http://127.0.0.1' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${url} → ${res.status} ${await res.text()}`);
  return res.json() as Promise<unknown>;
};

async function inFifties(count: number, each: (i: number) => Promise<unknown>) {
  for (let i = 0; i < count; i += 50)
    await Promise.all(Array.from({ length: Math.min(50, count - i) }, (_, j) => each(i + j)));
}

/**
 * Email sign-in side by side with Better Auth's emailOTP and magicLink plugins (issue 38): for
 * each, a send to `count` new addresses (a user each), and a verify of `count` single-use codes or
 * links into a session. Every answer is checked by the measuring (non-2xx and errors are counted);
 * Latchkey's verify bodies ask for a session, as Better Auth always makes one.
 */
export async function peerSignInTargets(lk: Latchkey, peer: Peer, count: number): Promise<Target[]> {
  const peerUrl = peer.url;
  const pub = { authorization: `Bearer ${lk.publicToken}` };
  const run = Date.now().toString(36);
  const address = (what: string, i: number) => `bench.${what}.${run}.${i}@example.com`;

  // Latchkey: codes and links to addresses of their own, sent before the rows run.
  const methods: string[] = [];
  await inFifties(count, async (i) => {
    const r = await lk.call(
      'POST',
      '/v1/auth/otps/email/login_or_create',
      { email: address('lk-otp', i) },
      lk.publicToken,
    );
    methods[i] = r.method_id!;
  });
  await inFifties(count, (i) =>
    lk.call(
      'POST',
      '/v1/auth/magic_links/email/login_or_create',
      { email: address('lk-link', i) },
      lk.publicToken,
    ),
  );
  const lkSent = await lk.sent();
  const lkOtp = methods.map((method_id, i) => ({
    method_id,
    otp: lkSent.get(address('lk-otp', i)),
    session_expires_in: 60,
  }));
  const lkLinks = Array.from({ length: count }, (_, i) => ({
    token: lkSent.get(address('lk-link', i)),
    session_expires_in: 60,
  }));

  // Better Auth: the same, through its plugins' routes.
  await inFifties(count, (i) =>
    post(`${peerUrl}/api/auth/email-otp/send-verification-otp`, {
      email: address('ba-otp', i),
      type: 'sign-in',
    }),
  );
  await inFifties(count, (i) =>
    post(`${peerUrl}/api/auth/sign-in/magic-link`, { email: address('ba-link', i) }),
  );
  const baOtp = (await post(
    `${peerUrl}/sent`,
    Array.from({ length: count }, (_, i) => address('ba-otp', i)),
  )) as string[];
  const baLinks = (await post(
    `${peerUrl}/sent`,
    Array.from({ length: count }, (_, i) => address('ba-link', i)),
  )) as string[];
  if ([...lkOtp.map((b) => b.otp), ...lkLinks.map((b) => b.token), ...baOtp, ...baLinks].some((v) => !v))
    throw new Error('a code or link of the sign-in rows was not sent');

  const n = { lkSend: 0, lkLinkSend: 0, lkOtp: 0, lkLink: 0, baSend: 0, baLinkSend: 0, baOtp: 0, baLink: 0 };
  const full = await fullSignInTargets(lk, peer, count, (who, i) => address(`${who}-flow`, i));
  const json = { 'content-type': 'application/json', origin: 'http://127.0.0.1' };
  return [
    {
      name: `sign-in: Latchkey otps/email/login_or_create (${count} new addresses)`,
      url: `${lk.url}/v1/auth/otps/email/login_or_create`,
      method: 'POST',
      headers: pub,
      nextBody: () => ({ email: address('lk-otp-send', n.lkSend++) }),
      amount: count,
    },
    {
      name: `sign-in: Better Auth email-otp/send-verification-otp (${count} new addresses)`,
      url: `${peerUrl}/api/auth/email-otp/send-verification-otp`,
      method: 'POST',
      headers: json,
      nextBody: () => ({ email: address('ba-otp-send', n.baSend++), type: 'sign-in' }),
      amount: count,
    },
    {
      name: `sign-in: Latchkey otps/verify → session (${count} codes)`,
      url: `${lk.url}/v1/auth/otps/verify`,
      method: 'POST',
      headers: pub,
      nextBody: () => lkOtp[n.lkOtp++ % count],
      amount: count,
    },
    {
      name: `sign-in: Better Auth sign-in/email-otp (${count} codes)`,
      url: `${peerUrl}/api/auth/sign-in/email-otp`,
      method: 'POST',
      headers: json,
      nextBody: () => {
        const i = n.baOtp++ % count;
        return { email: address('ba-otp', i), otp: baOtp[i] };
      },
      amount: count,
    },
    {
      name: `sign-in: Latchkey magic_links/email/login_or_create (${count} new addresses)`,
      url: `${lk.url}/v1/auth/magic_links/email/login_or_create`,
      method: 'POST',
      headers: pub,
      nextBody: () => ({ email: address('lk-link-send', n.lkLinkSend++) }),
      amount: count,
    },
    {
      name: `sign-in: Better Auth sign-in/magic-link (${count} new addresses)`,
      url: `${peerUrl}/api/auth/sign-in/magic-link`,
      method: 'POST',
      headers: json,
      nextBody: () => ({ email: address('ba-link-send', n.baLinkSend++) }),
      amount: count,
    },
    {
      name: `sign-in: Latchkey magic_links/authenticate → session (${count} links)`,
      url: `${lk.url}/v1/auth/magic_links/authenticate`,
      method: 'POST',
      headers: pub,
      nextBody: () => lkLinks[n.lkLink++ % count],
      amount: count,
    },
    {
      name: `sign-in: Better Auth magic-link/verify (${count} links)`,
      url: `${peerUrl}/api/auth/magic-link/verify`,
      method: 'GET',
      headers: { origin: 'http://127.0.0.1' },
      nextPath: () => `/api/auth/magic-link/verify?token=${encodeURIComponent(baLinks[n.baLink++ % count]!)}`,
      amount: count,
    },
    ...full,
  ];
}

/**
 * A whole email-passcode sign-in as a user makes it, for each side: send a code to a new address,
 * read it from the side's outbox file as it is written, and verify it into a session. Each answer
 * is checked (2xx, a method id, a session), so a flow that lost any step counts as an error.
 */
async function fullSignInTargets(
  lk: Latchkey,
  peer: Peer,
  count: number,
  address: (who: string, i: number) => string,
): Promise<Target[]> {
  const [lkCodes, baCodes] = await Promise.all([outboxTail(lk.outbox), outboxTail(peer.outbox)]);
  const client = jsonClient(64);
  const pub = { authorization: `Bearer ${lk.publicToken}` };
  const expect = (ok: boolean, step: string, answer: { status: number; body: unknown }) => {
    if (!ok) throw new Error(`${step} → ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
  };
  return [
    {
      name: `sign-in: Latchkey full sign-in, send + read + verify (${count} new addresses)`,
      url: `${lk.url}/v1/auth/otps/verify`,
      amount: count,
      flow: async (i) => {
        const email = address('lk', i);
        const sent = await client.post(`${lk.url}/v1/auth/otps/email/login_or_create`, { email }, pub);
        expect(sent.status === 200 && typeof sent.body.method_id === 'string', 'send', sent);
        const otp = await lkCodes.code(email);
        const body = { method_id: sent.body.method_id, otp, session_expires_in: 60 };
        const verified = await client.post(`${lk.url}/v1/auth/otps/verify`, body, pub);
        expect(
          verified.status === 200 && typeof verified.body.session_token === 'string',
          'verify',
          verified,
        );
      },
    },
    {
      name: `sign-in: Better Auth full sign-in, send + read + sign-in/email-otp (${count} new addresses)`,
      url: `${peer.url}/api/auth/sign-in/email-otp`,
      amount: count,
      flow: async (i) => {
        const email = address('ba', i);
        const sent = await client.post(`${peer.url}/api/auth/email-otp/send-verification-otp`, {
          email,
          type: 'sign-in',
        });
        expect(sent.status === 200, 'send', sent);
        const otp = await baCodes.code(email);
        const signedIn = await client.post(`${peer.url}/api/auth/sign-in/email-otp`, { email, otp });
        expect(signedIn.status === 200 && typeof signedIn.body.token === 'string', 'sign-in', signedIn);
      },
    },
  ];
}
