export type { HttpSmsSenderOptions } from './http-sms.js';
export { httpSmsSender } from './http-sms.js';
export type { OutboxEntry, OutboxSenderOptions } from './outbox.js';
export { outboxSender, readOutbox } from './outbox.js';
export type { RoutingSenderOptions } from './routing.js';
export { routingSender } from './routing.js';
export type { MailTransport, SmtpSenderOptions } from './smtp.js';
export { smtpSender } from './smtp.js';
