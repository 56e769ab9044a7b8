import { describe, expectTypeOf, it } from 'vitest';
import { createLatchkeyClient, type LatchkeyClientError, type ResponseOf } from '../src/index.js';
import { createLatchkeyServerClient } from '../src/server.js';

// Checked by `npm run typecheck` (tsc over every test): each @ts-expect-error line must fail to
// compile, or tsc reports the directive as unused. The calls never run.
const browser = createLatchkeyClient({ publicToken: 'pk_test' });
const server = createLatchkeyServerClient({ baseUrl: 'http://localhost', secretKey: 'sk_test' });

async function compileOnly() {
  // A wrong route.
  // @ts-expect-error no such route
  await server.call('post /v1/auth/otps/emial/send', { body: { email: 'a@example.com' } });
  // A secret-key route through the browser client.
  // @ts-expect-error the browser entry takes public-token routes only
  await browser.call('post /v1/auth/users', { body: { email: 'a@example.com' } });
  // A missing required field.
  // @ts-expect-error `otp` is required
  await browser.call('post /v1/auth/otps/verify', { body: { method_id: 'email-test' } });
  // @ts-expect-error a route with a body needs it
  await server.call('post /v1/auth/users');
  // A wrong field type.
  // @ts-expect-error `email` is a string
  await browser.otps.email.loginOrCreate({ email: 42 });
  // @ts-expect-error path parameters are required where the path has them
  await server.call('get /v1/auth/users/{user_id}', {});
  const challenge = { wallet_type: 'dogecoin', public_address: 'x' } as const;
  // @ts-expect-error `wallet_type` is one of the supported chains
  await browser.call('post /v1/auth/wallets/challenge', { body: challenge });

  // And the right shapes compile, with the answers typed.
  const user = await server.call('get /v1/auth/users/{user_id}', { params: { user_id: 'user-1' } });
  expectTypeOf(user.user_id).toEqualTypeOf<string>();
  const verified = await browser.otps.verify({ method_id: 'email-1', otp: '123456' });
  expectTypeOf(verified.method_type).toEqualTypeOf<'email' | 'phone_number'>();
}

describe('client types', () => {
  it('follow the OpenAPI document', () => {
    expectTypeOf(compileOnly).toBeFunction();
    expectTypeOf<ResponseOf<'post /v1/auth/sessions/authenticate'>['session_jwt']>().toEqualTypeOf<string>();
    expectTypeOf<LatchkeyClientError['error_type']>().toExtend<string>();
    expectTypeOf<'otp_code_invalid'>().toExtend<LatchkeyClientError['error_type']>();
    // @ts-expect-error not in the catalogue
    expectTypeOf<'otp_wrong'>().toExtend<LatchkeyClientError['error_type']>();
  });
});
