import type { AppKeys } from '@latchkey/core';
import { type Router as ExpressRouter, Router } from 'express';
import { clientPage } from './page-layout.js';

export const SESSIONS_PAGE = '/sessions';

/**
 * "Your devices": the signed-in user's sessions, through @latchkey/client with the public token
 * and the session the browser holds (`session.list`, `session.revoke`, `session.revokeOthers`).
 * The page sends the session token, which the server checks against storage, so a device signed
 * out from here is refused at its next request: its page returns to sign-in.
 */
export function sessionsPage(keys: AppKeys): ExpressRouter {
  const router = Router();
  router.get(SESSIONS_PAGE, (_req, res) => {
    res.type('html').send(clientPage('Your devices', keys.public_token, body, script));
  });
  return router;
}

const body = `<p>Sign in first (on <a href="/">the sign-in page</a>); each sign-in in another browser is another device here.</p>
<table id="sessions"><thead><tr><th>Device</th><th>Last active</th><th></th></tr></thead><tbody id="sessions-rows"></tbody></table>
<button id="sessions-reload">Reload</button> <button id="sessions-signout-others">Sign out all other devices</button>`;

// Rows are built with textContent: the device label comes from a user agent the browser reported.
const script = `const rows = $('sessions-rows');
const cell = (text) => {
  const td = document.createElement('td');
  td.textContent = text;
  return td;
};
async function load() {
  const sessions = await lk.session.list();
  rows.replaceChildren(...sessions.map((s) => {
    const tr = document.createElement('tr');
    tr.dataset.sessionId = s.id;
    tr.dataset.current = String(s.current);
    // Unix seconds.
    const lastActive = new Date(s.last_active_at * 1000);
    const when = cell(lastActive.toLocaleString());
    when.title = lastActive.toISOString();
    const action = document.createElement('td');
    if (s.current) action.textContent = 'This device';
    else {
      const button = document.createElement('button');
      button.className = 'signout-device';
      button.dataset.sessionId = s.id;
      button.textContent = 'Sign out';
      action.append(button);
    }
    tr.append(cell(s.device_label), when, action);
    return tr;
  }));
  return { sessions };
}
// Without a session, or with one the server no longer knows (signed out from another device),
// the page forgets it and returns to sign-in.
async function open() {
  if (!lk.session.get()) return location.replace('/');
  show('working', 'Loading…');
  try {
    show('listed', await load());
  } catch (err) {
    if (err.status === 401 || err.status === 404) {
      await lk.session.refresh().catch(() => {});
      return location.replace('/');
    }
    show('failed', err.status + ' ' + err.error_type + ': ' + err.message);
  }
}
rows.addEventListener('click', async (event) => {
  const id = event.target.closest('button.signout-device')?.dataset.sessionId;
  if (!id) return;
  show('working', 'Working…');
  try {
    const answer = await lk.session.revoke(id);
    await load();
    show('device-signed-out', answer);
  } catch (err) {
    show('failed', err.status + ' ' + err.error_type + ': ' + err.message);
  }
});
run('sessions-reload', load, 'listed');
run('sessions-signout-others', async () => {
  const answer = await lk.session.revokeOthers();
  await load();
  return answer;
}, 'others-signed-out');
await open();`;
