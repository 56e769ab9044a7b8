import { describe, expect, it } from 'vitest';
import type { WalletPolicyRecord } from '../src/wallet-policies/repo.js';
import { policyRecordsOnce } from '../src/wallet-policies/shared-records.js';

const policy = (id: string, addresses: string[], updated_at = 1_700_000_000): WalletPolicyRecord => ({
  id,
  app_id: 'app_1',
  name: 'allow-list',
  wallet_id: null,
  rules: [{ kind: 'evm_to_allowlist', addresses }],
  created_at: 1_700_000_000,
  updated_at,
});

const many = Array.from({ length: 1000 }, (_, i) => `0x${i.toString(16).padStart(40, '0')}`);

describe('policyRecordsOnce', () => {
  it('gives every wallet of an App the same copy of a policy read for each', () => {
    const once = policyRecordsOnce(100);
    // Each wallet's read returns its own objects, equal in content.
    const lists = Array.from({ length: 50 }, () =>
      once([policy('pol_a', many), policy('pol_b', [many[0]!])]),
    );
    for (const list of lists) {
      expect(list[0]).toBe(lists[0]![0]);
      expect(list[1]).toBe(lists[0]![1]);
    }
  });

  it('never hides an update behind an older copy, even within the same second', () => {
    const once = policyRecordsOnce(100);
    const [before] = once([policy('pol_a', [many[0]!])]);
    const [after] = once([policy('pol_a', [many[1]!])]);
    expect(after).not.toBe(before);
    expect(after!.rules).toEqual([{ kind: 'evm_to_allowlist', addresses: [many[1]] }]);
    // And the newer copy is the one shared from then on.
    expect(once([policy('pol_a', [many[1]!])])[0]).toBe(after);
  });

  it('keeps at most its limit of distinct policies, and answers correctly past it', () => {
    const once = policyRecordsOnce(10);
    for (let i = 0; i < 25; i++) {
      const read = policy(`pol_${i}`, [many[i]!]);
      expect(once([read])[0]).toEqual(read);
    }
    // Past the limit it starts over: a policy held before is a new copy, not the old one.
    const bounded = policyRecordsOnce(10);
    const [first] = bounded([policy('pol_0', [many[0]!])]);
    for (let i = 1; i <= 9; i++) bounded([policy(`pol_${i}`, [many[i]!])]);
    expect(bounded([policy('pol_0', [many[0]!])])[0]).toBe(first);
    bounded([policy('pol_10', [many[10]!])]);
    expect(bounded([policy('pol_0', [many[0]!])])[0]).not.toBe(first);
  });
});
