import { LatchkeyError, type OutboundMessage, type Sender } from '@latchkey/core';
import { routingSender } from '@latchkey/senders';
import { describe, expect, it } from 'vitest';

const recorder = () => {
  const sent: OutboundMessage[] = [];
  const sender: Sender = {
    send: async (message) => {
      sent.push(message);
    },
  };
  return { sent, sender };
};

const sms: OutboundMessage = {
  channel: 'sms',
  to: '+14155550100',
  kind: 'otp',
  app_id: 'app_01',
  text: 'Code 111111',
};
const email: OutboundMessage = {
  channel: 'email',
  to: 'ada@example.com',
  kind: 'otp',
  app_id: 'app_01',
  subject: 'Code',
  text: 'Code 222222',
};

describe('routingSender', () => {
  it('hands each message to the sender for its channel', async () => {
    const smsSide = recorder();
    const emailSide = recorder();
    const sender = routingSender({ sms: smsSide.sender, email: emailSide.sender });
    await sender.send(sms);
    await sender.send(email);
    await sender.send(sms);
    expect(smsSide.sent).toEqual([sms, sms]);
    expect(emailSide.sent).toEqual([email]);
  });

  it('passes a sender failure through unchanged', async () => {
    const failure = new LatchkeyError('sender_unavailable');
    const sender = routingSender({ email: { send: () => Promise.reject(failure) } });
    await expect(sender.send(email)).rejects.toBe(failure);
  });

  it('refuses a channel with no sender', async () => {
    const emailSide = recorder();
    const sender = routingSender({ email: emailSide.sender });
    const error = await sender.send(sms).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LatchkeyError);
    expect((error as LatchkeyError).errorType).toBe('internal_error');
    expect(emailSide.sent).toEqual([]);
  });
});
