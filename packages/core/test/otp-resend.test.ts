import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLatchkey } from '../src/index.js';
import {
  capturingSender,
  expectErrorShape,
  manualClock,
  TEST_SECRET,
  type TestApp,
  testApp,
} from './helpers.js';
import { storageBackends } from './storage-backends.js';

/**
 * Issue 14 point 7c: whoever asks for codes to someone else's address (the public token is
 * enough) can neither void the code the owner holds nor, by using up the address's budget, make
 * anything be written.
 */
describe.each(storageBackends())('OTP resends and the message budget on $name', (backend) => {
  let dispose: () => Promise<void>;
  let t: TestApp;
  // At the start of an hour, as the default is: the budget's window is a fixed hour, and a clock
  // started from Date.now() within a minute of the next hour crossed into a fresh window mid-test.
  const clock = manualClock();
  const sender = capturingSender();

  beforeAll(async () => {
    const opened = await backend.open();
    dispose = opened.dispose;
    const latchkey = createLatchkey({ storage: opened.storage, secret: TEST_SECRET, clock, sender });
    t = await testApp(latchkey);
    await latchkey.apps.updateSettings(t.app_id, {
      rate_limits: { per_destination: { limit: 5, window_seconds: 3600 } },
    });
  });
  afterAll(async () => {
    await dispose?.();
  });

  const send = (email: string) =>
    t.call('POST', '/v1/auth/otps/email/login_or_create', { email }, t.public_token);
  const verify = (method_id: string, otp: string) =>
    t.call('POST', '/v1/auth/otps/verify', { method_id, otp, session_expires_in: 60 }, t.public_token);

  it("resends within the budget do not void the owner's code; a refused send writes nothing", async () => {
    const email = `owner${Math.random().toString(36).slice(2)}@example.com`;
    const first = await send(email);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const ownersCode = sender.lastCode(email);

    // Someone else asks for codes to the same address until the budget refuses.
    clock.advance(30);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await send(email)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    const refused = await send(email);
    expect(expectErrorShape(refused).error_type).toBe('rate_limited');
    // Each resend carried the same live code, with the time it has left.
    const sent = sender.sent.filter((m) => m.to === email);
    expect(sent).toHaveLength(5);
    expect(new Set(sent.map((m) => m.code))).toEqual(new Set([ownersCode]));
    expect(sent.at(-1)!.text).toMatch(/\d+ minutes?/);

    // The owner types the code they got first, and it works, once.
    clock.advance(30);
    const ok = await verify(first.body.method_id, ownersCode);
    expect([ok.status, ok.body.user_id]).toEqual([200, first.body.user_id]);
    const again = await verify(first.body.method_id, ownersCode);
    expect(expectErrorShape(again).error_type).toBe('otp_code_used');
  });

  it('sends a fresh code once the live one is used, expired or out of attempts', async () => {
    await t.latchkey.apps.updateSettings(t.app_id, {
      rate_limits: { per_destination: { limit: 50, window_seconds: 3600 } },
    });
    const email = `fresh${Math.random().toString(36).slice(2)}@example.com`;
    const first = await send(email);
    const method = first.body.method_id as string;
    const used = sender.lastCode(email);
    expect((await verify(method, used)).status).toBe(200);

    await send(email);
    const afterUse = sender.lastCode(email);
    expect(afterUse).not.toBe(used);

    clock.advance(11 * 60);
    await send(email);
    const afterExpiry = sender.lastCode(email);
    expect(afterExpiry).not.toBe(afterUse);
    expect(expectErrorShape(await verify(method, afterUse)).error_type).toBe('otp_code_invalid');

    const wrong = afterExpiry === '000000' ? '111111' : '000000';
    for (let i = 0; i < 10; i++) {
      const res = await verify(method, wrong);
      if (res.body.error_type === 'otp_code_too_many_attempts') break;
    }
    await send(email);
    const afterLockout = sender.lastCode(email);
    expect(afterLockout).not.toBe(afterExpiry);
    expect((await verify(method, afterLockout)).status).toBe(200);
  });
});
