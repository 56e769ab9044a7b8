import { readFileSync } from 'node:fs';
import { TOKEN_SYMBOLS, TOKENS } from '@latchkey/core';
import { PublicKey } from '@solana/web3.js';
import { getAddress } from 'ethers';
import { describe, expect, it } from 'vitest';

const doc = readFileSync(new URL('../../../docs/balances.md', import.meta.url), 'utf8');

/** The rows of the token table in docs/balances.md, in the code's shape. */
function documentedTable() {
  const section = doc.slice(doc.indexOf('## The token table'), doc.indexOf('Test-network addresses'));
  // Data rows: the header names its columns, data rows have a number of decimals.
  const rows = section.split('\n').filter((line) => /^\| `[^|]+\|[^|]+\|[^|]+\| \d+ \|/.test(line));
  return rows.map((line) => {
    const [symbol, walletType, , decimals, mainnet, testnet] = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    const asset = (cell: string) => {
      if (cell === 'none') return null;
      const address = /`([0-9A-Za-z]{32,44})`/.exec(cell)?.[1];
      return address ? { contract: address } : 'native';
    };
    return {
      symbol: symbol!.replace(/`/g, ''),
      walletType: walletType!.replace(/`/g, ''),
      listing: { decimals: Number(decimals), mainnet: asset(mainnet!), testnet: asset(testnet!) },
    };
  });
}

describe('the token table', () => {
  it('is documented in docs/balances.md exactly as the code has it', () => {
    const documented = documentedTable();
    const inCode = Object.entries(TOKENS).flatMap(([symbol, byType]) =>
      Object.entries(byType).map(([walletType, l]) => ({
        symbol,
        walletType,
        listing: { decimals: l.decimals, mainnet: l.mainnet, testnet: l.testnet },
      })),
    );
    const key = (r: { symbol: string; walletType: string }) => `${r.symbol}/${r.walletType}`;
    expect(documented.map(key).sort()).toEqual(inCode.map(key).sort());
    for (const row of inCode)
      expect(
        documented.find((d) => key(d) === key(row)),
        key(row),
      ).toEqual(row);
  });

  it('covers every symbol of the interface, with the decimals the issue names', () => {
    expect(Object.keys(TOKENS).sort()).toEqual([...TOKEN_SYMBOLS].sort());
    expect(TOKENS.ethereum.ethereum?.decimals).toBe(18);
    expect(TOKENS.solana.solana?.decimals).toBe(9);
    expect(TOKENS.DOT.DOT?.decimals).toBe(10);
    expect(TOKENS.XLM.XLM?.decimals).toBe(7);
    expect(TOKENS.MATIC.solana).toBeUndefined();
  });

  it('holds well-formed addresses: EIP-55 checksummed contracts and 32-byte mints', () => {
    for (const [symbol, byType] of Object.entries(TOKENS)) {
      for (const [walletType, listing] of Object.entries(byType)) {
        for (const asset of [listing.mainnet, listing.testnet]) {
          if (asset === null || asset === 'native') continue;
          if (walletType === 'ethereum') expect(getAddress(asset.contract), symbol).toBe(asset.contract);
          else expect(new PublicKey(asset.contract).toBase58(), symbol).toBe(asset.contract);
        }
      }
    }
  });
});
