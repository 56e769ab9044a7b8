import { LatchkeyError, type Sender } from '@latchkey/core';
import { createTransport, type SendMailOptions } from 'nodemailer';
import { invalidOption, requireChannel } from './channel.js';

/** Anything that sends like a nodemailer transporter (a pooled one, SES, a test double). */
export interface MailTransport {
  sendMail(mail: SendMailOptions): Promise<{ rejected?: unknown[] }>;
}

interface SmtpCommon {
  /** The sender address, e.g. `"Acme" <no-reply@acme.test>`. */
  from: string;
}

export type SmtpSenderOptions = SmtpCommon &
  (
    | {
        host: string;
        port: number;
        /** TLS from the first byte (port 465); otherwise STARTTLS when the server offers it. */
        secure?: boolean;
        /** Refuse to send unless the server upgrades with STARTTLS. */
        requireTLS?: boolean;
        auth?: { user: string; pass: string };
        /** Bound on connecting, the greeting and each socket wait; default 10 s. */
        timeoutMs?: number;
      }
    | { transport: MailTransport }
  );

/**
 * Delivers email messages over SMTP with nodemailer. Any delivery failure (connection,
 * authentication, a refused recipient) is `sender_unavailable`, with the cause attached.
 */
export function smtpSender(options: SmtpSenderOptions): Sender {
  if (typeof options?.from !== 'string' || options.from === '')
    invalidOption('smtpSender', 'from is required');
  const transport = 'transport' in options ? options.transport : smtpTransport(options);
  return {
    async send(message) {
      requireChannel('smtpSender', 'email', message);
      let info: { rejected?: unknown[] };
      try {
        info = await transport.sendMail({
          from: options.from,
          to: message.to,
          subject: message.subject ?? '',
          text: message.text,
          ...(message.html === undefined ? {} : { html: message.html }),
        });
      } catch (cause) {
        throw new LatchkeyError('sender_unavailable', undefined, { cause });
      }
      if (info.rejected?.length) {
        throw new LatchkeyError('sender_unavailable', undefined, {
          cause: new Error('The SMTP server refused the recipient.'),
        });
      }
    },
  };
}

function smtpTransport(options: Exclude<SmtpSenderOptions, { transport: MailTransport }>): MailTransport {
  if (typeof options.host !== 'string' || options.host === '')
    invalidOption('smtpSender', 'host is required');
  if (!Number.isInteger(options.port) || options.port < 1 || options.port > 65535) {
    invalidOption('smtpSender', 'port must be an integer from 1 to 65535');
  }
  // nodemailer's defaults wait minutes; a request is waiting on this send.
  const timeout = options.timeoutMs ?? 10_000;
  return createTransport({
    host: options.host,
    port: options.port,
    secure: options.secure ?? false,
    requireTLS: options.requireTLS ?? false,
    ...(options.auth ? { auth: options.auth } : {}),
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
  });
}
