/** Gas and fee arithmetic for EVM sends: pure functions over wei as bigint. */

/** The least tip suggested, whatever recent blocks paid: enough for a block builder to include it. */
export const MIN_PRIORITY_FEE = 1_000_000_000n; // 1 gwei

/** A replacement's fees must beat the replaced one's by this (geth's and anvil's rule is 10%). */
const BUMP_NUMERATOR = 9n;
const BUMP_DENOMINATOR = 8n;

/** An estimate is raised by a fifth: state may change between the estimate and the block. */
export const withGasMargin = (estimate: bigint): bigint => (estimate * 6n) / 5n;

/**
 * EIP-1559 fees from an `eth_feeHistory` answer (a few blocks, the 50th reward percentile): the
 * tip is the median of the blocks' median tips, at least MIN_PRIORITY_FEE; the cap is twice the
 * next block's base fee plus the tip, which survives six full blocks of base-fee rises.
 */
export function suggestFees(history: { baseFeePerGas: bigint[]; rewards: bigint[] }): {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
} {
  const nextBase = history.baseFeePerGas.at(-1) ?? 0n;
  const sorted = [...history.rewards].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const median = sorted.length ? sorted[Math.floor(sorted.length / 2)]! : 0n;
  const tip = median > MIN_PRIORITY_FEE ? median : MIN_PRIORITY_FEE;
  return { maxFeePerGas: 2n * nextBase + tip, maxPriorityFeePerGas: tip };
}

/** The least fee a replacement may offer: the replaced one's × 9/8, rounded up, plus 1 wei. */
export const bumped = (previous: bigint): bigint =>
  (previous * BUMP_NUMERATOR + BUMP_DENOMINATOR - 1n) / BUMP_DENOMINATOR + 1n;

/** The largest of the candidates. */
export const maxOf = (...values: bigint[]): bigint => values.reduce((a, b) => (a > b ? a : b));
