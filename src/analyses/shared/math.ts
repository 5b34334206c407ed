/** Numeric aggregates over plain arrays (reference: analytics §2.3, §5.2). */

export const sum = (values: readonly number[]): number => {
  let total = 0;
  for (const v of values) total += v;
  return total;
};

/** Running totals: value i is the sum of values 0 … i (a cumulative line). */
export function cumulate(data: readonly number[]): number[] {
  let running = 0;
  return data.map((v) => (running += v));
}

export const mean = (values: readonly number[]): number => (values.length === 0 ? 0 : sum(values) / values.length);

/**
 * The mean of whole-millisecond durations, in seconds: their sum is exact in any order, so the answer does not
 * depend on the order the durations come in (one thread or many).
 */
export const meanSeconds = (ms: readonly number[]): number => sum(ms) / ms.length / 1000;

export const minimum = (values: readonly number[]): number => (values.length === 0 ? 0 : values.reduce((a, b) => (b < a ? b : a)));

export const maximum = (values: readonly number[]): number => (values.length === 0 ? 0 : values.reduce((a, b) => (b > a ? b : a)));

/**
 * Interpolated quantile as ClickHouse's `quantile(level)` computes it on small samples: position
 * level·(n−1) between the sorted neighbours. The median of an even count is the mean of the middle two.
 */
export function quantile(values: readonly number[], level: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const position = Math.max(0, Math.min(sorted.length - 1, level * (sorted.length - 1)));
  const low = Math.floor(position);
  const fraction = position - low;
  const a = sorted[low]!;
  const b = sorted[Math.min(low + 1, sorted.length - 1)]!;
  return a + (b - a) * fraction;
}

/** Aggregates named by the trend maths (`sum`, `p90`, `median_count_per_actor` uses "median"). */
export const AGGREGATES: Readonly<Record<string, (values: readonly number[]) => number>> = {
  sum,
  avg: mean,
  min: minimum,
  max: maximum,
  median: (v) => quantile(v, 0.5),
  p75: (v) => quantile(v, 0.75),
  p90: (v) => quantile(v, 0.9),
  p95: (v) => quantile(v, 0.95),
  p99: (v) => quantile(v, 0.99),
};
