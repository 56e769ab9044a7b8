/**
 * The breached-password adapters. The range client talks to a local HTTP server that speaks the
 * Pwned Passwords range protocol as documented (GET /range/{first 5 hex of SHA-1}, answer
 * `SUFFIX:COUNT` lines, CRLF, decoy lines with count 0 under `Add-Padding: true`); the file
 * adapter searches generated sorted lists. SHA-1 comes from node:crypto, an independent oracle.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { breachedPasswordsFile } from '@latchkey/core/breached-passwords-file';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countInRange, pwnedPasswordsRange } from '../src/password-auth/breach/index.js';

const sha1 = (s: string) => createHash('sha1').update(s, 'utf8').digest('hex').toUpperCase();

/** The corpus the fake API serves: password → times seen. */
const CORPUS = new Map([
  ['password', 10_434_004],
  ['hunter2', 52_579],
  ['correct horse battery staple', 411],
  ['pässwörd', 3],
]);
/** Served only as a padding line (count 0): not breached. */
const PADDED_ONLY = 'only in the padding';

describe('pwnedPasswordsRange against a local range server', () => {
  let server: Server;
  let base: string;
  const requests: Array<{ url: string; headers: IncomingMessage['headers'] }> = [];
  let mode: 'normal' | 'error' | 'hang' | 'huge' | 'redirect' = 'normal';

  beforeAll(async () => {
    server = createServer((req, res) => {
      requests.push({ url: req.url ?? '', headers: req.headers });
      if (mode === 'hang') return; // never answers
      if (mode === 'error') return res.writeHead(503).end('busy');
      if (mode === 'redirect') return res.writeHead(302, { location: 'http://example.com/' }).end();
      const match = /^\/range\/([0-9A-F]{5})$/.exec(req.url ?? '');
      if (!match) return res.writeHead(400).end('The hash prefix was not in a valid format');
      if (mode === 'huge') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end(`${'0'.repeat(35)}:1\r\n`.repeat(60_000));
      }
      const lines: string[] = [];
      for (const [password, count] of CORPUS) {
        const hash = sha1(password);
        if (hash.startsWith(match[1]!)) lines.push(`${hash.slice(5)}:${count}`);
      }
      const padded = sha1(PADDED_ONLY);
      if (padded.startsWith(match[1]!)) lines.push(`${padded.slice(5)}:0`);
      if (req.headers['add-padding'] === 'true')
        for (let i = 0; i < 200; i++)
          lines.push(`${randomBytes(18).toString('hex').slice(0, 35).toUpperCase()}:0`);
      lines.sort();
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(lines.join('\r\n'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('finds breached passwords, sends only a 5-digit prefix with padding on', async () => {
    mode = 'normal';
    requests.length = 0;
    const breached = pwnedPasswordsRange({ baseUrl: `${base}/` });
    for (const password of CORPUS.keys()) expect(await breached.isBreached(password), password).toBe(true);
    expect(await breached.isBreached('a long unguessable passphrase 7f3a')).toBe(false);
    expect(requests).toHaveLength(CORPUS.size + 1);
    for (const { url, headers } of requests) {
      expect(url).toMatch(/^\/range\/[0-9A-F]{5}$/);
      expect(headers['add-padding']).toBe('true');
    }
    expect(requests[1]!.url).toBe(`/range/${sha1('hunter2').slice(0, 5)}`);
    expect(JSON.stringify(requests)).not.toContain(sha1('hunter2').slice(5));
  });

  it('a suffix listed only with count 0 (padding) is not breached; minCount raises the bar', async () => {
    mode = 'normal';
    expect(countInRange(`${sha1(PADDED_ONLY).slice(5)}:0\r\n`, sha1(PADDED_ONLY).slice(5))).toBe(0);
    expect(await pwnedPasswordsRange({ baseUrl: base }).isBreached(PADDED_ONLY)).toBe(false);
    const strict = pwnedPasswordsRange({ baseUrl: base, minCount: 100 });
    expect(await strict.isBreached('hunter2')).toBe(true);
    expect(await strict.isBreached('pässwörd')).toBe(false);
  });

  it('parses lower-case suffixes, LF or CRLF, and ignores malformed lines', () => {
    const suffix = sha1('hunter2').slice(5);
    expect(countInRange(`junk\n${suffix.toLowerCase()}:7\nABC:1`, suffix)).toBe(7);
    expect(countInRange(`${suffix}:12\r\n`, suffix.toLowerCase())).toBe(12);
    expect(countInRange(`${suffix}:x\r\n${suffix}1:5`, suffix)).toBe(0);
  });

  it('an unavailable API allows the password and reports the error; "throw" passes it on', async () => {
    for (const failure of ['error', 'redirect', 'huge'] as const) {
      mode = failure;
      const errors: unknown[] = [];
      expect(
        await pwnedPasswordsRange({ baseUrl: base, onError: (e) => errors.push(e) }).isBreached('hunter2'),
      ).toBe(false);
      expect(errors, failure).toHaveLength(1);
      await expect(
        pwnedPasswordsRange({ baseUrl: base, onUnavailable: 'throw' }).isBreached('hunter2'),
        failure,
      ).rejects.toThrow();
    }
  });

  it('gives up after timeoutMs', async () => {
    mode = 'hang';
    const errors: unknown[] = [];
    const started = Date.now();
    const answer = await pwnedPasswordsRange({
      baseUrl: base,
      timeoutMs: 200,
      onError: (e) => errors.push(e),
    }).isBreached('hunter2');
    expect(answer).toBe(false);
    expect((errors[0] as Error).name).toMatch(/TimeoutError|AbortError/);
    // Generous: the point is that it returns at all while the server never answers.
    expect(Date.now() - started).toBeLessThan(20_000);
    mode = 'normal';
  });
});

describe('breachedPasswordsFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-breach-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const known = ['password', 'hunter2', 'letmein', 'qwerty', 'dragon', 'pässwörd', 'monkey', '123456'];
  /** 20,000 generated passwords' hashes plus the known ones, sorted; counts vary in width. */
  const generated = Array.from({ length: 20_000 }, (_, i) => `generated ${i}`);
  const byHash = new Map([...known, ...generated].map((p) => [sha1(p), p]));
  const lines = [
    ...known.map((p, i) => [sha1(p), 10 ** i] as const),
    ...generated.map((p, i) => [sha1(p), (i % 999) + 1] as const),
  ].sort(([a], [b]) => (a < b ? -1 : 1));
  /** The first, the last, and every 97th line's password. */
  const spread = lines
    .filter((_, i) => i === 0 || i === lines.length - 1 || i % 97 === 0)
    .map(([h]) => byHash.get(h)!);

  const write = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('finds every listed password, the first and last lines included, and no other', async () => {
    for (const [name, text] of [
      ['counts-crlf.txt', lines.map(([h, c]) => `${h}:${c}`).join('\r\n')],
      ['counts-lf-trailing.txt', `${lines.map(([h, c]) => `${h}:${c}`).join('\n')}\n`],
      ['hashes-only.txt', lines.map(([h]) => h.toLowerCase()).join('\n')],
    ] as const) {
      const file = await breachedPasswordsFile(write(name, text));
      try {
        for (const password of [...known, ...spread])
          expect(await file.isBreached(password), `${name} ${password}`).toBe(true);
        for (const password of ['not in the list', 'Password', 'hunter3', '', 'generated 20000'])
          expect(await file.isBreached(password), `${name} ${password}`).toBe(false);
      } finally {
        await file.close();
      }
    }
  });

  it('minCount reads the counts', async () => {
    const path = write('counts.txt', lines.map(([h, c]) => `${h}:${c}`).join('\n'));
    const file = await breachedPasswordsFile(path, { minCount: 1000 });
    try {
      expect(await file.isBreached('password')).toBe(false); // 1
      expect(await file.isBreached('qwerty')).toBe(true); // 1000
      expect(await file.isBreached('123456')).toBe(true); // 10^7
    } finally {
      await file.close();
    }
  });

  it('a one-line list, and the first and last of a two-line list', async () => {
    const one = await breachedPasswordsFile(write('one.txt', `${sha1('only')}:5`));
    expect(await one.isBreached('only')).toBe(true);
    expect(await one.isBreached('other')).toBe(false);
    await one.close();
    const pair = [sha1('first'), sha1('second')].sort();
    const two = await breachedPasswordsFile(write('two.txt', pair.join('\n')));
    expect(await two.isBreached('first')).toBe(true);
    expect(await two.isBreached('second')).toBe(true);
    await two.close();
  });

  it('refuses a file that is not a SHA-1 list', async () => {
    await expect(breachedPasswordsFile(write('ntlm.txt', `${'A'.repeat(32)}:3\n`))).rejects.toThrow(/SHA-1/);
    await expect(breachedPasswordsFile(write('empty.txt', ''))).rejects.toThrow(/SHA-1/);
    await expect(breachedPasswordsFile(join(dir, 'missing.txt'))).rejects.toThrow();
  });
});
