import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLatchkey, type Storage } from '../src/index.js';
import { expectErrorShape, TEST_SECRET, type TestApp, testApp } from './helpers.js';
import { storageBackends } from './storage-backends.js';
import { base32Decode, oracleCode } from './totp-oracle.js';

const wrongCodes = (n: number, right: string) =>
  Array.from({ length: n + 1 }, (_, i) => String(i).padStart(6, '0'))
    .filter((c) => c !== right)
    .slice(0, n);

/**
 * The lock-out under a burst: storage counts each attempt before its code is checked, so no more
 * than the limit are checked per lock window however many requests arrive together.
 */
describe.each(storageBackends())('TOTP lock-out under concurrency on $name', (backend) => {
  let storage: Storage;
  let dispose: () => Promise<void>;
  let t: TestApp;
  /** Code checks storage let through (granted tickets). */
  let checked = 0;

  beforeAll(async () => {
    const opened = await backend.open();
    storage = opened.storage;
    dispose = opened.dispose;
    const begin = storage.totps.beginCodeCheck.bind(storage.totps);
    storage.totps.beginCodeCheck = async (...args) => {
      const ticket = await begin(...args);
      if (ticket?.granted) checked += 1;
      return ticket;
    };
    const latchkey = createLatchkey({ storage, secret: TEST_SECRET });
    t = await testApp(latchkey);
    await latchkey.apps.updateSettings(t.app_id, {
      totp: { max_failures: 10, recovery_max_failures: 3, lockout_minutes: 15 },
    });
  });
  afterAll(async () => {
    await dispose?.();
  });

  const newUser = async () => (await t.call('POST', '/v1/auth/users', {})).body.user_id as string;
  const now = () => Math.floor(Date.now() / 1000);

  async function pendingTotp() {
    const user_id = await newUser();
    const created = await t.call('POST', '/v1/auth/totps/create', { user_id });
    return { user_id, created, secret: base32Decode(created.body.secret) };
  }

  async function activeTotp() {
    const p = await pendingTotp();
    const ok = await t.call('POST', '/v1/auth/totps/verify', {
      user_id: p.user_id,
      totp_code: oracleCode(p.secret, now()),
    });
    expect(ok.status).toBe(200);
    return p;
  }

  it('200 wrong codes and the right one at once: the right one fails, at most 10 codes are checked', async () => {
    const { user_id, secret } = await activeTotp();
    checked = 0;
    // The first second of a step can fall in the next one by the time it is checked: use a
    // code valid now and for the window either side.
    const right = oracleCode(secret, now());
    const burst = wrongCodes(200, right).map((totp_code) =>
      t.call('POST', '/v1/auth/totps/authenticate', { user_id, totp_code }),
    );
    burst.push(t.call('POST', '/v1/auth/totps/authenticate', { user_id, totp_code: right }));
    const answers = await Promise.all(burst);
    expect(checked).toBe(10);
    const last = answers.at(-1)!;
    expect(last.status).toBe(429);
    expect(expectErrorShape(last).error_type).toBe('totp_locked');
    expect(answers.filter((a) => a.status === 200)).toHaveLength(0);
    const types = answers.map((a) => expectErrorShape(a).error_type);
    expect(types.filter((x) => x === 'totp_code_invalid')).toHaveLength(9);
    expect(types.filter((x) => x === 'totp_locked')).toHaveLength(192);
    for (const a of answers.filter((x) => x.status === 429))
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThan(800);
  });

  it('activation (totps/verify) has the same limit: 40 wrong codes at once lock it, and the right one waits', async () => {
    const { user_id, secret } = await pendingTotp();
    checked = 0;
    const right = oracleCode(secret, now());
    const answers = await Promise.all(
      wrongCodes(40, right).map((totp_code) =>
        t.call('POST', '/v1/auth/totps/verify', { user_id, totp_code }),
      ),
    );
    expect(checked).toBe(10);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(31);
    const after = await t.call('POST', '/v1/auth/totps/verify', { user_id, totp_code: right });
    expect(expectErrorShape(after).error_type).toBe('totp_locked');
    expect((await t.call('POST', '/v1/auth/totps/authenticate', { user_id, totp_code: right })).status).toBe(
      404,
    );
  });

  it('recovery codes stay usable while TOTP codes are locked, and keep their own limit', async () => {
    const { user_id, created } = await activeTotp();
    const [first, second] = created.body.recovery_codes as string[];
    await Promise.all(
      Array.from({ length: 30 }, () =>
        t.call('POST', '/v1/auth/totps/authenticate', { user_id, totp_code: '000000' }),
      ),
    );
    const locked = await t.call('POST', '/v1/auth/totps/authenticate', { user_id, totp_code: '000000' });
    expect(expectErrorShape(locked).error_type).toBe('totp_locked');
    const recovered = await t.call('POST', '/v1/auth/totps/recover', { user_id, recovery_code: first });
    expect(recovered.status).toBe(200);
    // Re-sending the used code, even many times at once, is not a failure.
    const resent = await Promise.all(
      Array.from({ length: 10 }, () =>
        t.call('POST', '/v1/auth/totps/recover', { user_id, recovery_code: first }),
      ),
    );
    expect(new Set(resent.map((a) => expectErrorShape(a).error_type))).toEqual(
      new Set(['recovery_code_used']),
    );
    // Wrong recovery codes at once: 3 are judged, then recovery locks, even for a right code.
    const wrong = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.call('POST', '/v1/auth/totps/recover', {
          user_id,
          recovery_code: `zzzzz-${String(i).padStart(5, 'z')}`,
        }),
      ),
    );
    const types = wrong.map((a) => expectErrorShape(a).error_type);
    expect(types.filter((x) => x === 'recovery_code_invalid')).toHaveLength(2);
    expect(types.filter((x) => x === 'recovery_code_locked')).toHaveLength(18);
    const blocked = await t.call('POST', '/v1/auth/totps/recover', { user_id, recovery_code: second });
    expect(blocked.status).toBe(429);
    expect(expectErrorShape(blocked).error_type).toBe('recovery_code_locked');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(800);
  });
});
