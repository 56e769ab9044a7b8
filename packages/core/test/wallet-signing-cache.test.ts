import { memoryStorage } from '@latchkey/memory';
import { describe, expect, it } from 'vitest';
import type { WalletRecord, WalletRepo } from '../src/wallets/repo.js';
import { MAX_SIGNING_WALLETS, signingWallets } from '../src/wallets/signing-wallets.js';

/** Memory storage's wallet repo, its reads counted. */
function countedWallets() {
  const wallets = memoryStorage().wallets;
  let reads = 0;
  const repo: WalletRepo = {
    ...wallets,
    get: (appId, walletId) => {
      reads++;
      return wallets.get(appId, walletId);
    },
  };
  return { repo, wallets, reads: () => reads };
}

const wallet = (id: string, appId = 'app_a', extra: Partial<WalletRecord> = {}): WalletRecord => ({
  id,
  app_id: appId,
  user_id: 'user_1',
  wallet_type: 'solana',
  network: 'mainnet',
  public_address: `address-${id}`,
  key_source: 'imported',
  derivation_path: null,
  key_id: id,
  sealed_private_key: 'sealed',
  is_default: false,
  is_imported: true,
  is_read_only: false,
  verified: true,
  created_at: 1,
  updated_at: 1,
  ...extra,
});

describe("the signing path's wallets", () => {
  it('reads a signing wallet from storage once, and answers the same frozen record after', async () => {
    const { repo, wallets, reads } = countedWallets();
    await wallets.insert(wallet('wallet_1'));
    const read = signingWallets(repo);
    const first = await read('app_a', 'wallet_1');
    const second = await read('app_a', 'wallet_1');
    expect(reads()).toBe(1);
    expect(second).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it("never answers for another App's wallet id, kept or not", async () => {
    const { repo, wallets } = countedWallets();
    await wallets.insert(wallet('wallet_1', 'app_a'));
    const read = signingWallets(repo);
    await read('app_a', 'wallet_1');
    await expect(read('app_b', 'wallet_1')).rejects.toMatchObject({ errorType: 'wallet_not_found' });
  });

  it('keeps no refusal: an unknown wallet is read again once it exists; read-only ones stay refused', async () => {
    const { repo, wallets, reads } = countedWallets();
    const read = signingWallets(repo);
    await expect(read('app_a', 'wallet_later')).rejects.toMatchObject({ errorType: 'wallet_not_found' });
    await wallets.insert(wallet('wallet_later'));
    expect((await read('app_a', 'wallet_later')).id).toBe('wallet_later');
    await wallets.insert(wallet('wallet_ro', 'app_a', { is_read_only: true, key_source: 'external' }));
    await expect(read('app_a', 'wallet_ro')).rejects.toMatchObject({ errorType: 'wallet_read_only' });
    await expect(read('app_a', 'wallet_ro')).rejects.toMatchObject({ errorType: 'wallet_read_only' });
    expect(reads()).toBe(4);
  });

  it(`keeps at most ${MAX_SIGNING_WALLETS} wallets, then starts over`, async () => {
    const { repo, wallets, reads } = countedWallets();
    const read = signingWallets(repo);
    for (let i = 0; i <= MAX_SIGNING_WALLETS; i++) await wallets.insert(wallet(`wallet_${i}`));
    for (let i = 0; i < MAX_SIGNING_WALLETS; i++) await read('app_a', `wallet_${i}`);
    await read('app_a', 'wallet_0');
    expect(reads()).toBe(MAX_SIGNING_WALLETS);
    // One more is past the bound: the copies start over, so wallet_0 is read again.
    await read('app_a', `wallet_${MAX_SIGNING_WALLETS}`);
    await read('app_a', 'wallet_0');
    expect(reads()).toBe(MAX_SIGNING_WALLETS + 2);
  });
});
