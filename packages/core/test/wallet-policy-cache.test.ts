import { describe, expect, it } from 'vitest';
import type { Kernel } from '../src/kernel.js';
import type { SigningRequest } from '../src/shared/signing-request.js';
import { MAX_CACHED_WALLETS, walletPolicyService } from '../src/wallet-policies/service.js';

/** Just what the gate reads: the policies (counted per wallet), the clock, ids and the trail. */
function countingKernel() {
  const reads = new Map<string, number>();
  let n = 0;
  const k = {
    now: () => 1_700_000_000,
    id: (prefix: string) => `${prefix}_${++n}`,
    storage: {
      walletPolicies: {
        listForWallet: async (_appId: string, walletId: string) => {
          reads.set(walletId, (reads.get(walletId) ?? 0) + 1);
          return [];
        },
      },
      walletSignatures: { insert: async () => {} },
    },
  } as unknown as Kernel;
  return { k, reads };
}

const request = (walletId: string) =>
  ({
    app_id: 'app_1',
    wallet: { id: walletId },
    chain: 'solana',
    method: 'sign_message',
    payload_digest: '00',
    key_kind: 'secret',
  }) as unknown as SigningRequest;

describe('the policy cache of the signing gate', () => {
  it(`holds at most ${MAX_CACHED_WALLETS} wallets per App, then starts over`, async () => {
    const { k, reads } = countingKernel();
    const gate = walletPolicyService(k);
    const sign = (walletId: string) => gate.signUnder(request(walletId), async () => 'signed');
    await sign('w_first');
    await sign('w_first');
    expect(reads.get('w_first')).toBe(1); // cached
    for (let i = 1; i < MAX_CACHED_WALLETS; i++) await sign(`w_${i}`);
    await sign('w_first');
    expect(reads.get('w_first')).toBe(1); // still held: the App holds exactly the limit
    await sign('w_one_more'); // past the limit: the App's entries start over
    await sign('w_first');
    expect(reads.get('w_first')).toBe(2);
  });
});
