import { memoryStorage } from '@latchkey/memory';
import { afterEach, describe, expect, it, vi } from 'vitest';
import zxcvbn from 'zxcvbn';
import { createLatchkey, type Storage } from '../src/index.js';
import { ANALYSED_LENGTH, loadEstimator } from '../src/passwords/estimator.js';
import { expectErrorShape, TEST_SECRET, testApp } from './helpers.js';

const CHECK = '/v1/auth/passwords/strength_check';

/** Passwords by kind; each is scored by the original zxcvbn (the oracle) and by the API. */
const TABLE: Record<string, string[]> = {
  common: [
    'password',
    '123456',
    '12345678',
    'qwerty',
    'abc123',
    'letmein',
    'monkey',
    'dragon',
    'iloveyou',
    'trustno1',
    'football',
    'sunshine',
    'princess',
    'welcome',
    'P@ssw0rd',
    'Password1',
    'hunter2',
    'Summer2023!',
    'mypassword123',
  ],
  'keyboard walks': [
    'qwertyuiop',
    'asdfghjkl',
    'zxcvbnm',
    '1q2w3e4r',
    'qazwsxedc',
    '1qaz2wsx',
    '!QAZ2wsx',
    'zaq12wsx',
    'poiuytrewq',
    'qwerty123',
    'asdf1234',
    'mnbvcxz',
  ],
  names: [
    'jessica',
    'michael',
    'Jennifer',
    'ashley1',
    'Robert1980',
    'christopher',
    'danielle',
    'Thomas2010',
    'elizabeth',
    'smith123',
  ],
  passphrases: [
    'correct horse battery staple',
    'correcthorsebatterystaple',
    'the quick brown fox jumps over the lazy dog',
    'Tr0ub4dor&3',
    'purple monkey dishwasher',
    'mary had a little lamb',
    'thisisaverylongpassphrasewithoutspaces',
    'horse staple battery correct 42',
    'rainy-orbit-lemon-castle-tundra',
    'coRrecth0rseba++ery9.23.2007staple$',
  ],
  'words and digits': [
    'Summer2023!x',
    'jumping-frogs',
    'october-ramen9',
    'Bailey2015!dog',
    'kitten-piano',
    'soccer-mom-77',
    'd0lphin-reef',
    'nothing2lose!',
    'sunflower fields',
    'blue42Mango',
    'Tiger$Lily2',
    'MyDogIsSpot',
    'Gr33nT3a!',
    'bR4v3h34rt',
  ],
  random: [
    'rWibMFACxAUGZmxhVncy',
    'x7Kp!q9Lm2#v',
    'Xk9#mQ2$vL7@',
    'ncc1701',
    'D0g!!!!!!!!',
    'aaaaaaaa',
    '11111111',
  ],
};

async function setup(settings: Record<string, unknown> = {}) {
  const t = await testApp();
  // The table below makes more public-token checks than the default per-IP limit allows.
  await t.latchkey.apps.updateSettings(t.app_id, {
    rate_limits: { public_routes: { compute: { limit: 10_000 } } },
    ...settings,
  });
  return t;
}

/** zxcvbn's score bands, by guesses: what a crack time at 10^10 guesses per second implies. */
const scoreOfCrackTime = (seconds: number) => {
  const guesses = seconds * 1e10;
  return guesses < 1e3 + 5 ? 0 : guesses < 1e6 + 5 ? 1 : guesses < 1e8 + 5 ? 2 : guesses < 1e10 + 5 ? 3 : 4;
};

describe('password strength check', () => {
  it('scores a table of passwords within one point of the original zxcvbn, with the documented shape', async () => {
    const t = await setup();
    const rows: Array<{ kind: string; password: string; ours: number; oracle: number }> = [];
    for (const [kind, passwords] of Object.entries(TABLE)) {
      for (const password of passwords) {
        const res = await t.call('POST', CHECK, { password }, t.public_token);
        expect(res.status, password).toBe(200);
        const body = res.body;
        expect(Object.keys(body).sort()).toEqual([
          'crack_time',
          'crack_time_display',
          'feedback',
          'score',
          'valid_password',
        ]);
        expect(Number.isInteger(body.score) && body.score >= 0 && body.score <= 4).toBe(true);
        expect(typeof body.crack_time).toBe('number');
        expect(body.crack_time).toBeGreaterThan(0);
        expect(typeof body.crack_time_display).toBe('string');
        expect(body.valid_password).toBe(body.score >= 3);
        expect(typeof body.feedback.warning).toBe('string');
        expect(Array.isArray(body.feedback.suggestions)).toBe(true);
        // crack_time is the offline fast-hash time (10^10 guesses/s): the score follows from it.
        expect(scoreOfCrackTime(body.crack_time), password).toBe(body.score);
        const oracle = zxcvbn(password);
        rows.push({ kind, password, ours: body.score, oracle: oracle.score });
        // Same model, same order of magnitude as zxcvbn for the common ones.
        if (kind === 'common' && oracle.score === 0) expect(body.crack_time).toBeLessThan(1e-6);
      }
    }
    expect(rows.length).toBeGreaterThanOrEqual(30);
    const far = rows.filter((r) => Math.abs(r.ours - r.oracle) > 1);
    expect(far).toEqual([]);
    // Not only within one: the same score for nearly all, across the whole range.
    expect(rows.filter((r) => r.ours === r.oracle).length / rows.length).toBeGreaterThanOrEqual(0.9);
    expect(new Set(rows.map((r) => r.ours))).toEqual(new Set([0, 1, 2, 3, 4]));
  });

  it('explains weak passwords and says when a strong one is fine', async () => {
    const t = await setup();
    const weak = await t.call('POST', CHECK, { password: 'qwertyuiop' }, t.public_token);
    expect(weak.body).toMatchObject({
      score: 0,
      valid_password: false,
      crack_time_display: 'less than a second',
      feedback: { warning: expect.stringMatching(/\w/) },
    });
    expect(weak.body.feedback.suggestions.length).toBeGreaterThan(0);
    const strong = await t.call(
      'POST',
      CHECK,
      { password: 'rainy-orbit-lemon-castle-tundra' },
      t.public_token,
    );
    expect(strong.body).toMatchObject({
      score: 4,
      valid_password: true,
      crack_time_display: 'centuries',
      feedback: { warning: '', suggestions: [] },
    });
  });

  it("judges valid_password against the App's minimum score", async () => {
    const t = await setup({ passwords: { min_score: 1 } });
    const res = await t.call('POST', CHECK, { password: 'Robert1980' });
    expect(res.body).toMatchObject({ score: 1, valid_password: true });
    const strict = await setup({ passwords: { min_score: 4 } });
    const three = await strict.call('POST', CHECK, { password: 'Summer2023!x' });
    expect(three.body.score).toBe(3);
    expect(three.body.valid_password).toBe(false);
  });

  it("scores a password built from the user's email or name lower when they are given", async () => {
    const t = await setup();
    const password = 'ada.lovelace1815';
    const alone = await t.call('POST', CHECK, { password }, t.public_token);
    const withEmail = await t.call(
      'POST',
      CHECK,
      { password, email: 'Ada.Lovelace@example.com' },
      t.public_token,
    );
    expect(withEmail.status).toBe(200);
    expect(withEmail.body.crack_time).toBeLessThan(alone.body.crack_time / 1000);
    expect(withEmail.body.score).toBeLessThan(alone.body.score);

    const user = await t.call('POST', '/v1/auth/users', {
      email: 'countess@example.com',
      name: { first_name: 'Quillon', last_name: 'Vexmoor' },
    });
    const named = 'QuillonVexmoor!77';
    const anonymous = await t.call('POST', CHECK, { password: named });
    const forUser = await t.call('POST', CHECK, { password: named, user_id: user.body.user_id });
    expect(forUser.status).toBe(200);
    expect(forUser.body.crack_time).toBeLessThan(anonymous.body.crack_time / 1000);
    expect(forUser.body.score).toBeLessThan(anonymous.body.score);
  });

  it('takes user_id only with the secret key, and a user of the App', async () => {
    const t = await setup();
    const publicToken = await t.call('POST', CHECK, { password: 'x', user_id: 'user_x' }, t.public_token);
    expect(publicToken.status).toBe(403);
    expect(expectErrorShape(publicToken).error_type).toBe('secret_key_required');
    const unknown = await t.call('POST', CHECK, { password: 'x', user_id: 'user_nobody' });
    expect(unknown.status).toBe(404);
    expect(expectErrorShape(unknown).error_type).toBe('user_not_found');
  });

  it('refuses a password over 256 characters with a 400 naming the field, and judges long ones by their first 64', async () => {
    const t = await setup();
    const tooLong = await t.call('POST', CHECK, { password: 'a'.repeat(257) }, t.public_token);
    expect(tooLong.status).toBe(400);
    expect(expectErrorShape(tooLong)).toMatchObject({ error_type: 'invalid_field', error_field: 'password' });
    expect(tooLong.body.error_message).not.toContain('aaaa');
    const direct = t.latchkey.passwords.strengthCheck(t.app_id, { password: 'b'.repeat(257) });
    await expect(direct).rejects.toMatchObject({ errorType: 'invalid_field', field: 'password' });

    const prefix = 'P@$$w0rd!1qaz'.repeat(8).slice(0, ANALYSED_LENGTH);
    const a = await t.call('POST', CHECK, { password: `${prefix}${'4@0$1!3|7+('.repeat(14)}` });
    const b = await t.call('POST', CHECK, { password: `${prefix}zz` });
    expect(a.status).toBe(200);
    expect(`${prefix}${'4@0$1!3|7+('.repeat(14)}`.length).toBeLessThanOrEqual(256);
    expect(a.body).toEqual(b.body);
  });

  it('loads the dictionaries once per process', async () => {
    const first = loadEstimator();
    expect(loadEstimator()).toBe(first);
    const t = await setup();
    await t.latchkey.passwords.preload();
    await t.call('POST', CHECK, { password: 'one' });
    expect(loadEstimator()).toBe(first);
  });
});

describe('a password in flight', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('is never stored nor logged, and not even on an internal error', async () => {
    const password = 'Zebra-Quasar-Lantern-8841';
    const written: string[] = [];
    const base = memoryStorage();
    // Every argument of every storage call, as JSON.
    const storage = new Proxy(base, {
      get(target, repoName) {
        const repo = Reflect.get(target, repoName);
        if (typeof repo !== 'object' || repo === null) return repo;
        return new Proxy(repo, {
          get(r, method) {
            const fn = Reflect.get(r, method);
            return typeof fn === 'function'
              ? (...args: unknown[]) => {
                  written.push(JSON.stringify(args));
                  return fn.apply(r, args);
                }
              : fn;
          },
        });
      },
    }) as Storage;
    const logged: string[] = [];
    for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const)
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
        logged.push(args.map((a) => (a instanceof Error ? `${a.message} ${a.stack}` : String(a))).join(' '));
      });
    const internal: unknown[] = [];
    const latchkey = createLatchkey({
      storage,
      secret: TEST_SECRET,
      onInternalError: (err) => {
        internal.push(err);
      },
    });
    const t = await testApp(latchkey);
    const res = await t.call('POST', CHECK, { password, email: 'z@example.com' }, t.public_token);
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).not.toContain(password);

    // The estimator failing mid-check: the error reported carries no trace of the password.
    const zxcvbnFactory = await loadEstimator();
    vi.spyOn(zxcvbnFactory, 'check').mockImplementation((p: string) => {
      throw new Error(`matcher exploded on ${p}`);
    });
    const failed = await t.call('POST', CHECK, { password }, t.public_token);
    expect(failed.status).toBe(500);
    expect(expectErrorShape(failed).error_type).toBe('internal_error');
    expect(internal).toHaveLength(1);
    const reported = internal[0] as Error;
    expect(`${reported.message} ${reported.stack} ${String(reported.cause)}`).not.toContain(password);

    expect(written.length).toBeGreaterThan(0);
    expect(written.join('\n')).not.toContain(password);
    expect(logged.join('\n')).not.toContain(password);
    expect(JSON.stringify(failed.body)).not.toContain(password);
  });
});
