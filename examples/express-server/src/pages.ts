import type { AppKeys } from '@latchkey/core';
import { type Router as ExpressRouter, Router } from 'express';
import { oauthButtonsBody, oauthButtonsScript } from './oauth-page.js';
import { clientPage } from './page-layout.js';

export const MAGIC_LINK_PAGE = '/magic-link';
export const RESET_PASSWORD_PAGE = '/reset-password';

/**
 * The demo App's own pages, all on @latchkey/client: the sign-in page at `/`, the magic-link
 * landing page where links lead, and the page where a password reset link leads. A GET never
 * consumes a token, so mail scanners that follow links do no harm: the page's script spends it.
 */
export function demoPages(keys: AppKeys): ExpressRouter {
  const router = Router();
  router.get('/', (_req, res) => {
    res.type('html').send(clientPage('Latchkey sign-in', keys.public_token, signInBody, signInScript));
  });
  router.get(MAGIC_LINK_PAGE, (_req, res) => {
    res.type('html').send(clientPage('Signing you in…', keys.public_token, '', magicLinkScript));
  });
  router.get(RESET_PASSWORD_PAGE, (_req, res) => {
    res
      .type('html')
      .send(clientPage('Choose a new password', keys.public_token, resetPasswordBody, resetPasswordScript));
  });
  return router;
}

const signInBody = `<p>The API is under <code>/v1</code> (see <a href="/v1/openapi.json">/v1/openapi.json</a>); passcodes and links land in the outbox file. Passkeys: <a href="/passkeys">/passkeys</a>. Your devices (sessions): <a href="/sessions">/sessions</a>.</p>
<section><h2>Email passcode</h2>
<input id="otp-email" type="email" placeholder="you@example.com"> <button id="otp-send">Send code</button><br>
<input id="otp-code" inputmode="numeric" placeholder="123456"> <button id="otp-verify">Sign in</button></section>
<section><h2>Email and password</h2>
<input id="pw-email" type="email" autocomplete="username" placeholder="you@example.com">
<input id="pw-password" type="password" autocomplete="current-password" placeholder="password"><br>
<button id="pw-signup">Sign up</button> <button id="pw-signin">Sign in</button> <button id="pw-forgot">Forgot password</button></section>
<section><h2>Magic link</h2>
<input id="magic-email" type="email" placeholder="you@example.com"> <button id="magic-send">Email me a link</button></section>
<section><h2>Passkey</h2><button id="passkey-signin">Sign in with a passkey</button> (open at <code>localhost</code>)</section>
<section><h2>Authenticator app (TOTP), once signed in</h2>
<button id="totp-enrol">Set up</button> <img id="totp-qr" alt="" width="160"> <code id="totp-secret"></code><br>
<input id="totp-code" placeholder="code or recovery code"> <button id="totp-verify">Activate</button> <button id="totp-authenticate">Verify code</button> <button id="totp-recover">Use recovery code</button></section>
<section><h2>Wallet</h2><button id="eth-signin">Sign in with Ethereum</button> <button id="sol-signin">Sign in with Solana</button></section>
${oauthButtonsBody}
<section><h2>Session</h2><button id="refresh">Refresh</button> <button id="signout">Sign out</button></section>`;

// The sign-ins report this browser's user agent, so that /sessions can name each device.
const signInScript = `let methodId;
const device = { device_fingerprint: { user_agent: navigator.userAgent } };
run('otp-send', async () => {
  const sent = await lk.otps.email.loginOrCreate({ email: $('otp-email').value });
  methodId = sent.method_id;
  return sent;
}, 'code-sent');
run('otp-verify', () => lk.otps.verify({ method_id: methodId, otp: $('otp-code').value.trim(), ...device }), 'signed-in');
const credentials = () => ({ email: $('pw-email').value, password: $('pw-password').value, ...device });
// A public sign-up answers alike for a new address and a taken one, and opens no session for
// either (no one learns which addresses have accounts): the page signs in next.
run('pw-signup', async () => {
  await lk.passwords.create(credentials());
  return lk.passwords.authenticate(credentials());
}, 'signed-up');
run('pw-signin', () => lk.passwords.authenticate(credentials()), 'signed-in');
run('pw-forgot', () => lk.passwords.email.resetStart({ email: $('pw-email').value }), 'reset-sent');
run('magic-send', () => lk.magicLinks.email.loginOrCreate({ email: $('magic-email').value }), 'link-sent');
run('passkey-signin', () => lk.passkeys.signIn(), 'signed-in');
run('totp-enrol', async () => {
  const enrolment = await lk.totp.enrol();
  $('totp-qr').src = enrolment.qrDataUrl;
  $('totp-secret').textContent = enrolment.secretGrouped;
  return enrolment;
}, 'enrolled');
run('totp-verify', () => lk.totp.verify($('totp-code').value.trim()), 'totp-active');
run('totp-authenticate', () => lk.totp.authenticate($('totp-code').value.trim()), 'signed-in');
run('totp-recover', () => lk.totp.recover($('totp-code').value.trim()), 'signed-in');
run('eth-signin', () => {
  if (!window.ethereum) throw Object.assign(new Error('No Ethereum wallet in this browser.'), { status: 0, error_type: 'no_wallet' });
  return lk.wallets.ethereum.signIn(window.ethereum);
}, 'signed-in');
run('sol-signin', () => {
  if (!window.solana) throw Object.assign(new Error('No Solana wallet in this browser.'), { status: 0, error_type: 'no_wallet' });
  return lk.wallets.solana.signIn(window.solana);
}, 'signed-in');
${oauthButtonsScript}
run('refresh', () => lk.session.refresh(), 'refreshed');
run('signout', async () => {
  await lk.session.signOut();
  return { signed_out: true };
}, 'signed-out');
`;

const magicLinkScript = `const heading = document.querySelector('h1');
show('working', 'Signing you in…');
try {
  const result = await lk.magicLinks.authenticateFromUrl();
  if (result === null) {
    heading.textContent = 'No token in this link';
    show('no-token', 'Open the link from your email.');
  } else {
    heading.textContent = result.link_type === 'signup' ? 'Welcome, you are registered' : 'You are signed in';
    show(result.link_type === 'signup' ? 'registered' : 'signed-in', result);
  }
} catch (err) {
  heading.textContent = 'This link did not work';
  show('failed', err.status + ' ' + err.error_type + ': ' + err.message);
}`;

const resetPasswordBody = `<section><input id="reset-password" type="password" autocomplete="new-password" placeholder="new password">
<button id="reset-submit">Set password</button></section>`;

// The token leaves the address bar at once (a reload or a shared URL does not carry it) and is
// spent only on submit: a refused password leaves the link usable, so the user can try another.
const resetPasswordScript = `const token = new URL(location.href).searchParams.get('token');
if (token) history.replaceState(history.state, '', location.pathname);
else show('no-token', 'Open the link from your email.');
run('reset-submit', () => {
  if (!token) throw Object.assign(new Error('Open the link from your email.'), { status: 0, error_type: 'no_token' });
  return lk.passwords.email.reset({ token, password: $('reset-password').value });
}, 'password-reset');`;
