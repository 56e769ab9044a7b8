/**
 * One message to a user: a passcode or a magic link, by SMS or email; a password reset link, or
 * the notice that someone tried to sign up with the address, by email.
 */
export interface OutboundMessage {
  channel: 'sms' | 'email';
  /** E.164 phone number or email address. */
  to: string;
  kind: 'otp' | 'magic_link' | 'password_reset' | 'password_notice' | 'invitation';
  app_id: string;
  /** Email subject; absent for SMS. */
  subject?: string;
  /** The human text (the SMS body or the plain-text email). */
  text: string;
  html?: string;
  /** The structured value the text carries. */
  code?: string;
  url?: string;
}

/** Delivers messages. Throwing makes the calling request fail with `sender_unavailable`. */
export interface Sender {
  send(message: OutboundMessage): Promise<void>;
}
