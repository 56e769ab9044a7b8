import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:net';
import { LatchkeyError, type OutboundMessage } from '@latchkey/core';
import { smtpSender } from '@latchkey/senders';
import { type AddressObject, type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';

interface Received {
  mail: ParsedMail;
  mailFrom: string | false;
  rcptTo: string[];
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((close) => close()));
});

/** A real SMTP server on a free local port that parses what it receives. */
async function startSmtpServer(options: Partial<SMTPServerOptions> = {}) {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    // Plain connections: the test has no certificate for STARTTLS.
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream).then((mail) => {
        received.push({
          mail,
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : false,
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
        });
        callback();
      }, callback);
    },
    ...options,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.server.address() as AddressInfo).port, received };
}

async function expectLatchkeyError(promise: Promise<unknown>, errorType: string) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LatchkeyError);
  expect((error as LatchkeyError).errorType).toBe(errorType);
  return error as LatchkeyError;
}

const addressText = (a: AddressObject | AddressObject[] | undefined) =>
  (Array.isArray(a) ? a : a ? [a] : []).map((x) => x.text).join(', ');

const magicLink: OutboundMessage = {
  channel: 'email',
  to: 'ada@example.com',
  kind: 'magic_link',
  app_id: 'app_01',
  subject: 'Sign in to Acme',
  text: 'Sign in: https://acme.test/auth?token=tok_ABC123 (code 654321)',
  html: '<p><a href="https://acme.test/auth?token=tok_ABC123">Sign in</a> or use 654321</p>',
  code: '654321',
  url: 'https://acme.test/auth?token=tok_ABC123',
};

describe('smtpSender', () => {
  it('delivers an email with from, to, subject, text and html to a real SMTP server', async () => {
    const smtp = await startSmtpServer();
    const sender = smtpSender({ host: '127.0.0.1', port: smtp.port, from: '"Acme" <no-reply@acme.test>' });
    await sender.send(magicLink);

    expect(smtp.received).toHaveLength(1);
    const { mail, mailFrom, rcptTo } = smtp.received[0]!;
    expect(mailFrom).toBe('no-reply@acme.test');
    expect(rcptTo).toEqual(['ada@example.com']);
    expect(mail.from?.text).toBe('"Acme" <no-reply@acme.test>');
    expect(addressText(mail.to)).toBe('ada@example.com');
    expect(mail.subject).toBe('Sign in to Acme');
    expect(mail.text).toContain('https://acme.test/auth?token=tok_ABC123');
    expect(mail.text).toContain('654321');
    expect(mail.html).toContain('href="https://acme.test/auth?token=tok_ABC123"');
    expect(mail.html).toContain('654321');
  });

  it('logs in when the server asks for credentials, and fails cleanly on wrong ones', async () => {
    const smtp = await startSmtpServer({
      authOptional: false,
      allowInsecureAuth: true,
      onAuth(auth, _session, callback) {
        if (auth.username === 'mailer' && auth.password === 'hunter2') callback(null, { user: 'mailer' });
        else callback(new Error('Invalid username or password'));
      },
    });
    const good = smtpSender({
      host: '127.0.0.1',
      port: smtp.port,
      from: 'no-reply@acme.test',
      auth: { user: 'mailer', pass: 'hunter2' },
    });
    await good.send(magicLink);
    expect(smtp.received).toHaveLength(1);

    const bad = smtpSender({
      host: '127.0.0.1',
      port: smtp.port,
      from: 'no-reply@acme.test',
      auth: { user: 'mailer', pass: 'wrong' },
    });
    await expectLatchkeyError(bad.send(magicLink), 'sender_unavailable');
    expect(smtp.received).toHaveLength(1);
  });

  it('maps a refused recipient to sender_unavailable (502) with the cause attached', async () => {
    const smtp = await startSmtpServer({
      onRcptTo(address, _session, callback) {
        if (address.address.endsWith('@blocked.test')) {
          callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }));
        } else callback();
      },
    });
    const sender = smtpSender({ host: '127.0.0.1', port: smtp.port, from: 'no-reply@acme.test' });
    const error = await expectLatchkeyError(
      sender.send({ ...magicLink, to: 'someone@blocked.test' }),
      'sender_unavailable',
    );
    expect(error.status).toBe(502);
    expect(error.message).toBe('The message could not be delivered; retry shortly.');
    expect(error.message).not.toContain('654321');
    expect(error.cause).toBeInstanceOf(Error);
    expect(smtp.received).toHaveLength(0);
  });

  it('maps a closed port to sender_unavailable', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const sender = smtpSender({ host: '127.0.0.1', port, from: 'no-reply@acme.test' });
    await expectLatchkeyError(sender.send(magicLink), 'sender_unavailable');
  });

  it('gives up after timeoutMs on a server that never greets', async () => {
    const sockets = new Set<import('node:net').Socket>();
    const silent: Server = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    });
    const sender = smtpSender({
      host: '127.0.0.1',
      port: (silent.address() as AddressInfo).port,
      from: 'no-reply@acme.test',
      timeoutMs: 300,
    });
    const started = Date.now();
    await expectLatchkeyError(sender.send(magicLink), 'sender_unavailable');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('refuses SMS messages without contacting the server', async () => {
    const smtp = await startSmtpServer();
    const sender = smtpSender({ host: '127.0.0.1', port: smtp.port, from: 'no-reply@acme.test' });
    const error = await expectLatchkeyError(
      sender.send({ channel: 'sms', to: '+14155550100', kind: 'otp', app_id: 'app_01', text: 'Code 123456' }),
      'internal_error',
    );
    expect(error.message).toContain('email only');
    expect(smtp.received).toHaveLength(0);
  });

  it('sends through a caller-supplied transport', async () => {
    const sent: unknown[] = [];
    const sender = smtpSender({
      from: 'no-reply@acme.test',
      transport: {
        sendMail: async (mail) => {
          sent.push(mail);
          return { rejected: [] };
        },
      },
    });
    await sender.send(magicLink);
    expect(sent).toEqual([
      {
        from: 'no-reply@acme.test',
        to: 'ada@example.com',
        subject: 'Sign in to Acme',
        text: magicLink.text,
        html: magicLink.html,
      },
    ]);
  });

  it('refuses to build without the settings it needs', () => {
    for (const bad of [
      { host: '127.0.0.1', port: 25, from: '' },
      { host: '', port: 25, from: 'a@b.test' },
      { host: '127.0.0.1', port: 0, from: 'a@b.test' },
      { host: '127.0.0.1', port: 70000, from: 'a@b.test' },
    ]) {
      expect(() => smtpSender(bad)).toThrow(LatchkeyError);
    }
  });
});
