import { createLatchkey, type Latchkey, type LatchkeyOptions } from '@latchkey/core';
import { memoryStorage } from '@latchkey/memory';
import { expect } from 'vitest';
import type { OidcProviderServer, SignInOptions } from '../../core/test/oauth-peers/oidc-provider-server.js';
import { createLatchkeyClient, isLatchkeyClientError, type LatchkeyClientError } from '../src/index.js';

/**
 * The client's tests in Node against a real Latchkey, in process: the client's `fetch` is the
 * instance's handler, and the browser's redirects through a provider are played by fetch.
 */

export const baseUrl = 'http://latchkey.test';

/**
 * A Latchkey on memory storage with one App, and a fetch bound to it that keeps each JSON body
 * sent (so a test can read what the client put on the wire). `client()` is a browser client of
 * the App over it.
 */
export async function inProcessLatchkey(
  appName: string,
  options: Omit<LatchkeyOptions, 'storage' | 'sender'> & Partial<Pick<LatchkeyOptions, 'sender'>>,
) {
  const latchkey = createLatchkey({ storage: memoryStorage(), sender: { send: async () => {} }, ...options });
  const app = await latchkey.apps.create({ name: appName });
  const sentBodies: unknown[] = [];
  const inProcess: typeof fetch = async (input, init) => {
    if (init?.body) sentBodies.push(JSON.parse(String(init.body)));
    return latchkey.fetch(new Request(input as string, init));
  };
  const client = () => createLatchkeyClient({ publicToken: app.public_token, baseUrl, fetch: inProcess });
  return { latchkey, app, sentBodies, inProcess, client };
}

/** The `LatchkeyClientError` a promise rejects with; anything else fails the test. */
export const caught = async (promise: Promise<unknown>): Promise<LatchkeyClientError> => {
  try {
    await promise;
  } catch (e) {
    if (isLatchkeyClientError(e)) return e;
    throw e;
  }
  throw new Error('expected a LatchkeyClientError');
};

/**
 * Sign-ins through an identity provider (panva's oidc-provider harness): its accounts, and the
 * browser's trip. `provider` is read at each call, as the tests start it in `beforeAll`.
 */
export function providerTrip(latchkey: Latchkey, provider: () => OidcProviderServer, emailDomain: string) {
  let accounts = 0;
  return {
    /** A new account at the provider, for one test: its id (the subject); its email at `domain`. */
    account: (label: string, domain = emailDomain) => {
      accounts += 1;
      const id = `${label}-${accounts}`;
      provider().accounts[id] = { email: `${id}@${domain}`, email_verified: true };
      return id;
    },
    /** Start → provider (signed in as `account`) → callback → the App's page: that page's URL. */
    landingUrl: async (startUrl: string, account: string, options: SignInOptions = {}): Promise<string> => {
      const started = await latchkey.fetch(new Request(startUrl));
      expect(started.status, await started.clone().text()).toBe(302);
      const atCallback = await provider().signInAs(started.headers.get('location')!, account, options);
      const back = await latchkey.fetch(new Request(atCallback));
      expect(back.status).toBe(302);
      return back.headers.get('location')!;
    },
  };
}
