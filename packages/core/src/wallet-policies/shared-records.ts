import type { WalletPolicyRecord } from './repo.js';

/**
 * Keeps one copy of each of an App's policies, however many of its wallets hold it in their cached
 * lists. Without it, an App-wide policy (up to a request body's worth of allow-lists) read for each
 * of an App's wallets was held once per wallet, with the allow-list sets built from it: one App's
 * secret key could fill the process's memory, and every App shares that process. A record is
 * reused only while it reads exactly the same, so an update never hides behind an older copy,
 * even one within the same second.
 */
export function policyRecordsOnce(
  maxRecords: number,
): (records: WalletPolicyRecord[]) => WalletPolicyRecord[] {
  const byId = new Map<string, { record: WalletPolicyRecord; text: string }>();
  return (records) =>
    records.map((record) => {
      const text = JSON.stringify(record);
      const known = byId.get(record.id);
      if (known?.text === text) return known.record;
      // Policies deleted in another process linger until here: the App's copies start over.
      if (!known && byId.size >= maxRecords) byId.clear();
      byId.set(record.id, { record, text });
      return record;
    });
}
