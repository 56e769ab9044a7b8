import { expect } from 'vitest';
import type { TestApp } from './helpers.js';

/**
 * An allowed send left exactly one audit entry and one each of `signature.made` and
 * `wallet.transaction.sent`, both stored and `heard` in process: whichever chain, whichever storage
 * path (one-step `advance` or the entry, then the transition).
 */
export async function expectOneSendRecorded(t: TestApp, walletId: string, heard: string[]) {
  const trail = await t.call('GET', `/v1/wallets/${walletId}/signatures`);
  expect(trail.body.signatures).toHaveLength(1);
  expect(trail.body.signatures[0]).toMatchObject({ decision: 'allowed', method: 'sign_transaction' });
  const events = await t.call('GET', '/v1/events?limit=100');
  const types = events.body.events.map((e: { type: string }) => e.type);
  for (const list of [types, heard]) {
    expect(list.filter((x: string) => x === 'signature.made')).toHaveLength(1);
    expect(list.filter((x: string) => x === 'wallet.transaction.sent')).toHaveLength(1);
  }
}
