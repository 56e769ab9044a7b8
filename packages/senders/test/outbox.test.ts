import { mkdir, mkdtemp, readFile, rm, rmdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OutboundMessage } from '@latchkey/core';
import { outboxSender, readOutbox } from '@latchkey/senders';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// Every append the sender makes, counted (and done): sends made together share appends.
const appends = vi.hoisted(() => ({ count: 0 }));
vi.mock('node:fs/promises', async (original) => {
  const fs = await original<typeof import('node:fs/promises')>();
  return {
    ...fs,
    appendFile: (...args: Parameters<typeof fs.appendFile>) => {
      appends.count++;
      return fs.appendFile(...args);
    },
  };
});

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'latchkey-outbox-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const otpEmail: OutboundMessage = {
  channel: 'email',
  to: 'ada@example.com',
  kind: 'otp',
  app_id: 'app_01',
  subject: 'Your code',
  text: 'Your code is 123456',
  html: '<p>Your code is <b>123456</b></p>',
  code: '123456',
};

describe('outboxSender', () => {
  it('appends one JSON line per message, creating the folder, with sent_at from the clock', async () => {
    const path = join(dir, 'nested', 'deeper', 'outbox.jsonl');
    expect(await readOutbox(path)).toEqual([]);
    const sender = outboxSender({ path, clock: { now: () => Date.UTC(2030, 0, 2, 3, 4, 5) } });
    await sender.send(otpEmail);
    await sender.send({
      channel: 'sms',
      to: '+14155550100',
      kind: 'magic_link',
      app_id: 'app_02',
      text: 'Sign in: https://app.test/auth?token=abc',
      url: 'https://app.test/auth?token=abc',
    });

    const raw = await readFile(path, 'utf8');
    expect(raw.endsWith('\n')).toBe(true);
    const lines = raw.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0]!)).toEqual({ ...otpEmail, sent_at: '2030-01-02T03:04:05.000Z' });
    expect(JSON.parse(lines[1]!)).toEqual({
      channel: 'sms',
      to: '+14155550100',
      kind: 'magic_link',
      app_id: 'app_02',
      text: 'Sign in: https://app.test/auth?token=abc',
      url: 'https://app.test/auth?token=abc',
      sent_at: '2030-01-02T03:04:05.000Z',
    });
    expect(await readOutbox(path)).toEqual(lines.map((l) => JSON.parse(l)));
  });

  it('writes only the message fields, nothing else a caller attached', async () => {
    const path = join(dir, 'outbox.jsonl');
    await outboxSender({ path }).send({ ...otpEmail, internal: 'do not write' } as OutboundMessage);
    const [entry] = await readOutbox(path);
    expect(Object.keys(entry!).sort()).toEqual(
      ['app_id', 'channel', 'code', 'html', 'kind', 'sent_at', 'subject', 'text', 'to'].sort(),
    );
    expect(new Date(entry!.sent_at).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it('never interleaves lines: 50 concurrent sends through two senders give 50 whole lines', async () => {
    const path = join(dir, 'outbox.jsonl');
    const senders = [outboxSender({ path }), outboxSender({ path })];
    // Some lines larger than one write chunk (512 KiB), where unserialized appends could interleave.
    const big = 'x'.repeat(700 * 1024);
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        senders[i % 2]!.send({
          ...otpEmail,
          to: `user${i}@example.com`,
          html: i % 5 === 0 ? big : `<p>${i}</p>`,
        }),
      ),
    );
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(50);
    const entries = lines.map((line) => JSON.parse(line));
    expect(new Set(entries.map((e) => e.to)).size).toBe(50);
    for (const e of entries) {
      const i = Number(e.to.match(/\d+/)[0]);
      expect(e.html).toBe(i % 5 === 0 ? big : `<p>${i}</p>`);
    }
  });

  it('appends the lines of sends made before their turn comes in one append, in order', async () => {
    const path = join(dir, 'outbox.jsonl');
    const sender = outboxSender({ path });
    appends.count = 0;
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => sender.send({ ...otpEmail, to: `u${i}@example.com` })),
    );
    // All 50 made before the first append began: one append for all of them.
    expect(appends.count).toBe(1);
    expect((await readOutbox(path)).map((e) => e.to)).toEqual(
      Array.from({ length: 50 }, (_, i) => `u${i}@example.com`),
    );
  });

  it('makes the folder again, owner-only, when it is removed between sends', async () => {
    const folder = join(dir, 'gone');
    const path = join(folder, 'outbox.jsonl');
    const sender = outboxSender({ path });
    await sender.send(otpEmail);
    await rm(folder, { recursive: true });
    await sender.send({ ...otpEmail, to: 'after@example.com' });
    expect((await readOutbox(path)).map((e) => e.to)).toEqual(['after@example.com']);
    expect((await stat(folder)).mode & 0o777).toBe(0o700);
  });

  it('keeps sending after one append fails', async () => {
    const path = join(dir, 'outbox.jsonl');
    const sender = outboxSender({ path });
    // A folder where the file should be: the append fails, and must not jam the queue.
    await mkdir(path);
    await expect(sender.send(otpEmail)).rejects.toMatchObject({ code: 'EISDIR' });
    await rmdir(path);
    await sender.send({ ...otpEmail, to: 'second@example.com' });
    expect((await readOutbox(path)).map((e) => e.to)).toEqual(['second@example.com']);
  });
});
