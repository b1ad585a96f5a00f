import { resolveSizes } from './sizes.js';
import type { DataSizes, ProfileName, SimulatorOptions } from './types.js';

/**
 * What a simulated program uses. Real programs differ: many have no loyalty passes, no tiers, no
 * referrals, no reviews, or a stream that is still empty, and every optional field of the spec can be
 * absent from every record a client reads. A feature that is off leaves its fields absent or null on
 * every record, for the whole life of the program (ticks included).
 */
export interface ProgramFeatures {
  /** `insights_segment` on some customers; the spec says it may be absent. */
  insights: boolean;
  /** `loyalty_pass_url` and `loyalty_pass_installed` on some customers; the spec says they may be absent. */
  loyaltyPasses: boolean;
  /** Tiers: without them every `loyalty_tier_membership` is null. */
  tiers: boolean;
  /** Referrals: without them every `referred_by` is null. */
  referrals: boolean;
  /** Fulfilment tracking: without it every order's `fulfillment_status` is null. */
  fulfilment: boolean;
  /**
   * Points earned through rules and adjustments (activities) and reviews. Without them points only
   * arrive by imports and leave by redemptions, so no transaction embeds an `activity` (the spec's
   * optional field of a transaction) and the activities list is empty.
   */
  activities: boolean;
  /** Customer details beyond the required fields: property notes, birthdays, linked ids, a field the spec does not list. */
  customerDetails: boolean;
  /** Whether a tick adds customers (a one-customer program stays one customer). */
  newCustomers: boolean;
}

export interface Profile {
  /** One line for `simulate --help` and the README. */
  description: string;
  features: ProgramFeatures;
  /** Counts fixed by the profile; null takes them from the `size` option. */
  sizes: DataSizes | null;
}

const EVERYTHING: ProgramFeatures = {
  insights: true,
  loyaltyPasses: true,
  tiers: true,
  referrals: true,
  fulfilment: true,
  activities: true,
  customerDetails: true,
  newCustomers: true,
};

export const PROFILES: Readonly<Record<ProfileName, Profile>> = {
  full: {
    description: 'every feature; each optional field present on some records and absent on others (the default)',
    features: EVERYTHING,
    sizes: null,
  },
  bare: {
    description: 'no optional field on any record: no insights, loyalty passes, tiers, referrals, fulfilment, activities or reviews',
    features: { insights: false, loyaltyPasses: false, tiers: false, referrals: false, fulfilment: false, activities: false, customerDetails: false, newCustomers: true },
    sizes: null,
  },
  empty: {
    description: 'a program on its first day: every stream empty until a tick adds records',
    features: EVERYTHING,
    // A claimed reward needs a reward to point at; rewards are not a stream.
    sizes: { customers: 0, orders: 0, activities: 0, transactions: 0, reviews: 0, rewards: 1, unsubscribes: 0 },
  },
  single: {
    description: 'one customer with a few orders, activities and transactions, and one unsubscribe; ticks add no customers',
    features: { ...EVERYTHING, newCustomers: false },
    sizes: { customers: 1, orders: 3, activities: 5, transactions: 8, reviews: 1, rewards: 2, unsubscribes: 1 },
  },
};

export const PROFILE_NAMES = Object.keys(PROFILES) as ProfileName[];

/**
 * The features and counts the options ask for. An unknown profile, or a size beside a profile that
 * fixes the counts, is a RangeError naming what is accepted.
 */
export function resolveProgram(options: Pick<SimulatorOptions, 'profile' | 'size'>): { features: ProgramFeatures; sizes: DataSizes } {
  const name = options.profile ?? 'full';
  if (!Object.hasOwn(PROFILES, name)) throw new RangeError(`profile must be one of ${PROFILE_NAMES.join(', ')}, got ${String(name)}`);
  const profile = PROFILES[name];
  if (profile.sizes === null) return { features: profile.features, sizes: resolveSizes(options.size) };
  if (options.size !== undefined) throw new RangeError(`size cannot be combined with profile ${name}, which fixes the counts; leave size out or use profile full or bare`);
  return { features: profile.features, sizes: profile.sizes };
}
