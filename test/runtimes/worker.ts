/**
 * The fixture every edge runtime serves: Latchkey's HTTP API on memory storage, plus two fixture
 * routes the test needs and a host would not have: `/fixture/app` (creates the App once, answers
 * its keys) and `/fixture/last-code?to=…` (the last passcode the capturing sender was given).
 * Only web-standard APIs here, so the same bundle runs under workerd, Deno and Node.
 */
import { createLatchkey, type Latchkey, type OutboundMessage } from '@latchkey/core';
import { memoryStorage } from '@latchkey/memory';

const sent: OutboundMessage[] = [];
let latchkey: Latchkey | undefined;
let keys: ReturnType<Latchkey['apps']['create']> | undefined;

// Built on the first request, not at module load: workerd forbids random numbers and I/O in a
// worker's global scope.
function instance(): Latchkey {
  latchkey ??= createLatchkey({
    storage: memoryStorage(),
    secret: 'edge-runtime-fixture-secret-of-40-characters',
    sender: {
      send: async (message) => {
        sent.push(message);
      },
    },
  });
  return latchkey;
}

export async function handle(request: Request): Promise<Response> {
  const url = new URL(request.url);
  if (url.pathname === '/fixture/app') {
    keys ??= instance().apps.create({ name: 'Edge App' });
    const { app_id, secret_key, public_token } = await keys;
    return Response.json({ app_id, secret_key, public_token });
  }
  if (url.pathname === '/fixture/last-code') {
    const to = url.searchParams.get('to');
    const code = sent.filter((m) => m.to === to).at(-1)?.code;
    return code
      ? Response.json({ code })
      : Response.json({ error: `no code sent to ${to}` }, { status: 404 });
  }
  return instance().fetch(request);
}

/** workerd's module-worker shape. */
export default { fetch: handle };
