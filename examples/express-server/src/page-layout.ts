import { CLIENT_SCRIPT } from './client-bundle.js';

/**
 * A demo page on @latchkey/client: `lk` is the client (public token, session kept in
 * localStorage so every page shares it), `run(button, action, state)` shows an action's result
 * in `#result` with `data-state` set to `state`, or `failed` with the error type.
 */
export const clientPage = (
  title: string,
  publicToken: string,
  body: string,
  script: string,
) => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${title}</title>
<style>body{font:16px system-ui,sans-serif;max-width:44rem;margin:3rem auto;padding:0 1rem}pre{background:#f4f4f4;padding:1rem;overflow:auto;white-space:pre-wrap}button{font:inherit;padding:.3rem .9rem;margin:.2rem 0}input{font:inherit}section{border-top:1px solid #ddd;margin-top:1rem}</style>
</head>
<body>
<h1>${title}</h1>
<p id="session-line">Signed out.</p>
${body}
<pre id="result" data-state="idle">Nothing yet.</pre>
<script type="module">
import { createLatchkeyClient } from '${CLIENT_SCRIPT}';
const lk = createLatchkeyClient({ publicToken: ${JSON.stringify(publicToken)}, session: 'localStorage', sessionExpiresIn: 60 });
window.lk = lk;
window.createLatchkeyClient = createLatchkeyClient;
window.sessionEvents = [];
const $ = (id) => document.getElementById(id);
const out = $('result');
const show = (state, value) => {
  out.dataset.state = state;
  out.textContent = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
};
const showSession = (s) => {
  $('session-line').textContent = s ? 'Signed in as ' + s.user_id + '.' : 'Signed out.';
};
showSession(lk.session.get());
lk.session.onChange((change) => {
  window.sessionEvents.push(change.type);
  showSession(change.session);
});
const run = (button, action, state) => $(button).addEventListener('click', async () => {
  show('working', 'Working…');
  try {
    show(state, (await action()) ?? {});
  } catch (err) {
    show('failed', err.status + ' ' + err.error_type + ': ' + err.message);
  }
});
${script}
</script>
</body>
</html>
`;
