import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle, type SimulatorOptions } from '../../src/simulator/index.js';

type Json = Record<string, unknown>;

const STREAMS = ['customers', 'orders', 'activities', 'transactions', 'unsubscribes'] as const;

let sims: SimulatorHandle[] = [];
afterEach(async () => {
  await Promise.all(sims.map((sim) => sim.close()));
  sims = [];
});

async function start(options: SimulatorOptions): Promise<SimulatorHandle> {
  const sim = await startSimulator({ seed: 4, ...options });
  sims.push(sim);
  return sim;
}

const records = (sim: SimulatorHandle, stream: (typeof STREAMS)[number]) => sim.truth(stream) as Json[];
const counts = (sim: SimulatorHandle) => Object.fromEntries(STREAMS.map((stream) => [stream, sim.truth(stream).length]));

/** Where an optional (or nullable) field of the spec is set on some record of the program, as `stream.field`. */
function optionalFieldsPresent(sim: SimulatorHandle): string[] {
  const found = new Set<string>();
  for (const customer of records(sim, 'customers')) {
    for (const field of ['insights_segment', 'loyalty_pass_url', 'loyalty_pass_installed']) if (field in customer) found.add(`customers.${field}`);
    for (const field of ['loyalty_tier_membership', 'referred_by']) if (customer[field] !== null) found.add(`customers.${field}`);
  }
  for (const order of records(sim, 'orders')) if (order.fulfillment_status !== null) found.add('orders.fulfillment_status');
  for (const transaction of records(sim, 'transactions')) if ('activity' in transaction) found.add('transactions.activity');
  return [...found].sort();
}

const EVERY_OPTIONAL_FIELD = [
  'customers.insights_segment',
  'customers.loyalty_pass_installed',
  'customers.loyalty_pass_url',
  'customers.loyalty_tier_membership',
  'customers.referred_by',
  'orders.fulfillment_status',
  'transactions.activity',
];

describe('simulator profiles', () => {
  it('full (the default) sets every optional field on some records and leaves it out on others', async () => {
    const sim = await start({ size: 'tiny' });
    expect(optionalFieldsPresent(sim)).toEqual(EVERY_OPTIONAL_FIELD);
    const customers = records(sim, 'customers');
    expect(customers.some((customer) => !('loyalty_pass_installed' in customer))).toBe(true);
    // The explicit name is the same program, record for record.
    const named = await start({ size: 'tiny', profile: 'full' });
    for (const stream of STREAMS) expect(named.truth(stream)).toEqual(sim.truth(stream));
  });

  it('bare leaves every optional field absent or null on every record, also after the program lives on', async () => {
    const sim = await start({ size: 'small', profile: 'bare' });
    expect(optionalFieldsPresent(sim)).toEqual([]);
    expect(counts(sim)).toEqual({ customers: 1000, orders: 1500, activities: 0, transactions: 2500, unsubscribes: 300 });
    // Points still move, by imports and redemptions.
    expect(new Set(records(sim, 'transactions').map((transaction) => transaction.resource))).toEqual(new Set(['points_import', 'claimed_reward']));
    const before = counts(sim);
    sim.tick(3);
    expect(optionalFieldsPresent(sim)).toEqual([]);
    expect(counts(sim).customers).toBeGreaterThan(before.customers);
    expect(counts(sim).transactions).toBeGreaterThan(before.transactions);
    expect(counts(sim).activities).toBe(0);
  });

  it('empty starts with every stream empty, and a tick brings the first records', async () => {
    const sim = await start({ profile: 'empty' });
    expect(counts(sim)).toEqual({ customers: 0, orders: 0, activities: 0, transactions: 0, unsubscribes: 0 });
    sim.tick(2);
    const grown = counts(sim);
    expect(grown.customers).toBeGreaterThan(0);
    expect(grown.orders).toBeGreaterThan(0);
    expect(grown.transactions).toBeGreaterThan(0);
  });

  it('single has one customer, whom every record names, before and after ticks', async () => {
    const sim = await start({ profile: 'single' });
    const check = () => {
      const [customer, ...others] = records(sim, 'customers');
      expect(others).toEqual([]);
      for (const stream of ['orders', 'activities', 'transactions'] as const) {
        const rows = records(sim, stream);
        expect(rows.length, stream).toBeGreaterThan(0);
        expect(new Set(rows.map((row) => (row.customer as Json).id)), stream).toEqual(new Set([customer.id]));
      }
    };
    check();
    expect(counts(sim).unsubscribes).toBe(1);
    sim.tick(3);
    check();
  });

  const invalid: Array<[string, SimulatorOptions, RegExp]> = [
    ['an unknown profile', { profile: 'tiny' as SimulatorOptions['profile'] }, /profile must be one of full, bare, empty, single, got tiny/],
    ['a size beside a profile that fixes the counts', { profile: 'single', size: 'tiny' }, /size cannot be combined with profile single/],
  ];
  for (const [what, options, message] of invalid) {
    it(`refuses ${what} before listening`, async () => {
      await expect(startSimulator(options)).rejects.toThrow(message);
    });
  }
});
