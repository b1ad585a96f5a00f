import type { DataSizes, SizePreset } from './types.js';

export const SIZE_PRESETS: Readonly<Record<SizePreset, DataSizes>> = {
  tiny: { customers: 30, orders: 40, activities: 40, transactions: 50, reviews: 12, rewards: 5, unsubscribes: 25 },
  small: { customers: 1000, orders: 1500, activities: 2000, transactions: 2500, reviews: 200, rewards: 10, unsubscribes: 300 },
  medium: { customers: 20_000, orders: 30_000, activities: 40_000, transactions: 50_000, reviews: 2000, rewards: 15, unsubscribes: 3000 },
  large: { customers: 50_000, orders: 100_000, activities: 900_000, transactions: 1_000_000, reviews: 5000, rewards: 20, unsubscribes: 5000 },
};

/** A partial size fills its gaps from 'tiny', so `{ transactions: 10 }` stays a small data set. */
export function resolveSizes(size: SizePreset | Partial<DataSizes> | undefined): DataSizes {
  if (size === undefined) return SIZE_PRESETS.small;
  if (typeof size === 'string') return SIZE_PRESETS[size];
  const sizes = { ...SIZE_PRESETS.tiny, ...size };
  for (const [name, value] of Object.entries(sizes)) {
    if (!Number.isInteger(value) || value < 0) throw new RangeError(`size.${name} must be a non-negative integer, got ${value}`);
  }
  // A claim needs a reward to point at, and every activity needs a customer.
  return { ...sizes, customers: Math.max(1, sizes.customers), rewards: Math.max(1, sizes.rewards) };
}
