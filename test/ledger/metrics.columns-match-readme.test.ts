/**
 * Every column of program_metrics_daily equals its README line, computed here from the simulator's truth with plain
 * loops (nothing of src/ledger), on the shapes a real program has: a zone with DST and one east of UTC, orders placed
 * on a DST-change day and at local midnight through the API, guests' and non-members' orders, customers enrolled
 * after their first order, old orders refunded months later, a member the API deleted and one who left the program
 * (the mirror marks them as the deep refresh and a sync would), and the update after each equal to a full build.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/db/open.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { updateLedger } from '../../src/ledger/updateLedger.js';
import { syncMirror, testConfig } from '../helpers/sync.js';
import { freshMirror, tempDir } from '../helpers/tempDir.js';
import { expectedTables, shift, type TruthCustomer, type TruthOrder } from './expectedLedger.js';

let sim: SimulatorHandle | undefined;
const folders: string[] = [];
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

interface Customer extends TruthCustomer {
  merchant_id: string;
  guest: boolean;
}
type Order = TruthOrder;

const cents = (text: string): number => Math.round(Number(text) * 100);

/** What the mirror says about customers beyond the simulator's truth: deleted ones, and ones who left the program. */
interface MirrorEdits {
  removed: ReadonlySet<number>;
  unenrolled: ReadonlySet<number>;
}

/** program_metrics_daily by the README's one-line definitions. */
function readmeMetrics(handle: SimulatorHandle, timeZone: string, today: string, edits: MirrorEdits): Array<Record<string, unknown>> {
  const format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
  const dayOf = (iso: string): string => format.format(new Date(iso));
  // Points by day: the classification is points_ledger_daily's, checked against the truth by its own tests.
  const ledger = expectedTables(handle, timeZone, today).points_ledger_daily;
  const transactions = handle.truth('transactions') as Array<{ customer: { id: number }; created_at: string }>;
  const customers = (handle.truth('customers') as Customer[]).filter((c) => !edits.removed.has(c.id));
  const orders = (handle.truth('orders') as Order[]).map((o) => ({ customer: o.customer?.id ?? null, day: dayOf(o.created_at), revenue: cents(o.total_paid) - cents(o.total_refunded) }));

  // members: enrolled now, from the day of enrolled_at (else created_at).
  const memberDay = new Map<number, string>();
  for (const c of customers) if (c.enrolled && !edits.unenrolled.has(c.id)) memberDay.set(c.id, dayOf(c.enrolled_at ?? c.created_at));
  const isMember = (customer: number | null, day: string): boolean => customer !== null && (memberDay.get(customer) ?? '9999') <= day;
  const transactionDays = transactions.map((t) => ({ customer: t.customer.id, day: dayOf(t.created_at) }));

  // Buckets by day, so each row reads only the days of its windows.
  const bucket = <T>(items: ReadonlyArray<T & { day: string }>): Map<string, T[]> => {
    const byDay = new Map<string, T[]>();
    for (const item of items) byDay.set(item.day, [...(byDay.get(item.day) ?? []), item]);
    return byDay;
  };
  const ordersByDay = bucket(orders);
  const transactionsByDay = bucket(transactionDays);
  const ledgerByDay = new Map(ledger.map((row) => [row.day as string, row]));
  const window = (day: string, days: number): string[] => Array.from({ length: days }, (_, i) => shift(day, -i));

  const sourceDays = [...transactionDays.map((t) => t.day), ...memberDay.values(), ...orders.map((o) => o.day)].sort();
  if (sourceDays.length === 0) return [];
  const last = sourceDays[sourceDays.length - 1] > today ? sourceDays[sourceDays.length - 1] : today;
  const rows: Array<Record<string, unknown>> = [];
  for (let day = sourceDays[0]; day <= last; day = shift(day, 1)) {
    // "The 30 (90) days ending with the day": the day itself and the 29 (89) before it.
    const days30 = window(day, 30);
    const earned = days30.reduce((sum, d) => sum + ((ledgerByDay.get(d)?.earned as number | undefined) ?? 0), 0);
    const redeemed = -days30.reduce((sum, d) => sum + ((ledgerByDay.get(d)?.redeemed as number | undefined) ?? 0), 0);
    const active = new Set(days30.flatMap((d) => transactionsByDay.get(d) ?? []).filter((t) => isMember(t.customer, day)).map((t) => t.customer));
    const todays = ordersByDay.get(day) ?? [];
    const members = todays.filter((o) => isMember(o.customer, o.day));
    const revenue = todays.reduce((sum, o) => sum + o.revenue, 0);
    const memberRevenue = members.reduce((sum, o) => sum + o.revenue, 0);
    const orders90 = window(day, 90).flatMap((d) => ordersByDay.get(d) ?? []);
    const repeat = (asMember: boolean): number | null => {
      const counts = new Map<number, number>();
      for (const o of orders90) if (o.customer !== null && isMember(o.customer, o.day) === asMember) counts.set(o.customer, (counts.get(o.customer) ?? 0) + 1);
      return counts.size === 0 ? null : [...counts.values()].filter((n) => n >= 2).length / counts.size;
    };
    let tiers: string | null = null;
    if (day === today) {
      const byTier: Record<string, number> = {};
      for (const c of customers) {
        const name = c.loyalty_tier_membership?.loyalty_tier.name ?? '';
        byTier[name] = (byTier[name] ?? 0) + 1;
      }
      tiers = JSON.stringify(Object.fromEntries(Object.entries(byTier).sort(([a], [b]) => (a < b ? -1 : 1))));
    }
    rows.push({
      day,
      members: [...memberDay.values()].filter((d) => d <= day).length,
      new_members: [...memberDay.values()].filter((d) => d === day).length,
      active_members_30d: active.size,
      points_earned_30d: earned,
      points_redeemed_30d: redeemed,
      redemption_rate_30d: earned > 0 ? redeemed / earned : null,
      orders: todays.length,
      revenue: (revenue / 100).toFixed(2),
      member_orders: members.length,
      member_revenue: (memberRevenue / 100).toFixed(2),
      member_order_share: todays.length > 0 ? members.length / todays.length : null,
      member_revenue_share: revenue > 0 ? memberRevenue / revenue : null,
      repeat_rate_members_90d: repeat(true),
      repeat_rate_others_90d: repeat(false),
      customers_by_tier: tiers,
    });
  }
  return rows;
}

function todayIn(timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
}

function metrics(db: Db): Array<Record<string, unknown>> {
  return db.prepare('SELECT * FROM program_metrics_daily ORDER BY day').all() as Array<Record<string, unknown>>;
}

/** Column by column, so a failure names the column and its first wrong day; shares to 12 places (cents here, exact decimals there). */
function expectColumnsEqual(actual: ReadonlyArray<Record<string, unknown>>, expected: ReadonlyArray<Record<string, unknown>>): void {
  expect(actual.map((row) => row.day)).toEqual(expected.map((row) => row.day));
  const round = (value: unknown): unknown => (typeof value === 'number' && !Number.isInteger(value) ? Number(value.toFixed(12)) : value);
  for (const column of Object.keys(expected[0] ?? {})) {
    const wrong = expected.findIndex((row, i) => round(row[column]) !== round(actual[i][column]));
    const at = wrong < 0 ? null : { day: expected[wrong].day, expected: expected[wrong][column], actual: actual[wrong][column] };
    expect(at, column).toBeNull();
  }
}

/** program_metrics_daily as a full build of a copy of the mirror writes it. */
function metricsOfFullBuild(db: Db, timeZone: string): Array<Record<string, unknown>> {
  const folder = tempDir('metrics-copy-');
  folders.push(folder);
  const path = join(folder, 'copy.db');
  db.prepare('VACUUM INTO ?').run(path);
  const copy = openDatabase(path);
  copy.prepare('DELETE FROM ledger_state').run();
  expect(updateLedger(copy, { timeZone, pointValue: null }, new Date()).full).toBe(true);
  const rows = metrics(copy);
  copy.close();
  return rows;
}

async function sync(handle: SimulatorHandle, path: string, db: Db, timeZone: string, deep = false): Promise<void> {
  const config = testConfig(handle, path, { program: { timeZone }, ledger: { pointValue: null } });
  await syncMirror(db, config, { deep });
}

/** An order placed through the API at `date` (the spec's create-order), for an existing or a new (guest) customer. */
async function placeOrder(handle: SimulatorHandle, merchantId: string, customerId: string, date: string, paid: string, guest = false): Promise<void> {
  const response = await fetch(`${handle.url}/v2/orders`, {
    method: 'POST',
    headers: { authorization: `Bearer ${handle.keys.full}`, 'content-type': 'application/json' },
    body: JSON.stringify({ merchant_id: merchantId, customer_id: customerId, customer_email: `${customerId}@example.com`, total: paid, total_shipping: '0.00', total_paid: paid, payment_status: 'paid', date, guest }),
  });
  expect(response.status).toBe(201);
}

/** Marks customers as the mirror holds them after the deep refresh found them gone, or a sync read them unenrolled. */
function editMirror(db: Db, edits: { removed: number[]; unenrolled: number[] }): void {
  const seq = (): number => db.prepare('UPDATE change_counter SET value = value + 1 WHERE id = 1 RETURNING value').pluck().get() as number;
  const at = new Date().toISOString();
  for (const id of edits.removed) db.prepare('UPDATE customers SET _removed_at = ?, _synced_at = ?, _change_seq = ? WHERE id = ?').run(at, at, seq(), id);
  for (const id of edits.unenrolled) db.prepare('UPDATE customers SET enrolled = 0, enrolled_at = NULL, _change_seq = ? WHERE id = ?').run(seq(), id);
}

/** Few customers with many orders each: repeat purchases among members and others alike, in seconds. */
const SIZE = { customers: 150, orders: 600, activities: 500, transactions: 700, reviews: 20, rewards: 5, unsubscribes: 10 };

const cases: Array<{ zone: string; epoch: number; seed: number; midnights: string[] }> = [
  // Spring change on 8 March 2026 (a 23-hour day: midnight is 05:00Z before it, 04:00Z after) and autumn change on
  // 1 November 2026 (25 hours: 04:00Z to 05:00Z the next day); the customers' history reaches back past 2 November 2025.
  {
    zone: 'America/New_York',
    epoch: Date.UTC(2026, 2, 20, 12),
    seed: 31,
    midnights: [
      '2026-03-08T04:59:59.999Z', '2026-03-08T05:00:00.000Z', '2026-03-08T07:30:00.000Z', '2026-03-09T03:59:59.999Z', '2026-03-09T04:00:00.000Z',
      '2026-11-01T03:59:59.999Z', '2026-11-01T04:00:00.000Z', '2026-11-01T06:30:00.000Z', '2026-11-02T04:59:59.999Z', '2026-11-02T05:00:00.000Z',
    ],
  },
  // East of UTC: a Tokyo day starts at 15:00Z the day before.
  { zone: 'Asia/Tokyo', epoch: Date.UTC(2026, 2, 20, 12), seed: 32, midnights: ['2026-03-07T14:59:59.999Z', '2026-03-07T15:00:00.000Z', '2026-03-08T14:59:59.000Z'] },
];

describe('program_metrics_daily equals its README definitions, column by column', () => {
  for (const { zone, epoch, seed, midnights } of cases) {
    it(`in ${zone}: after enrolments, late refunds, orders at midnight, a deleted and a departed member, each update equals the truth and a full build`, async () => {
      const handle = (sim = await startSimulator({ size: SIZE, seed, epoch }));
      const made = freshMirror();
      folders.push(made.dir);
      const { db, path } = made;
      const none: MirrorEdits = { removed: new Set(), unenrolled: new Set() };
      await sync(handle, path, db, zone);
      expectColumnsEqual(metrics(db), readmeMetrics(handle, zone, todayIn(zone), none));

      // Orders around local midnight and on the DST-change day, by a member, a registered non-member and a new guest.
      const customers = handle.truth('customers') as Customer[];
      const member = customers.find((c) => c.enrolled)!;
      const registered = customers.filter((c) => !c.enrolled && !c.guest);
      expect(registered.length).toBeGreaterThan(1);
      for (const [i, date] of midnights.entries()) {
        await placeOrder(handle, `mid-${i}`, (i % 3 === 0 ? member : registered[0]).merchant_id, date, '10.00');
        await placeOrder(handle, `guest-${i}`, `guest-${seed}`, date, '4.00', true);
      }
      // Registered customers who already ordered enrol now; orders three months old are refunded.
      handle.tick(1);
      const changed = handle.changeOldRecords({ edit: { count: customers.length, minAgeDays: 0 }, refund: { count: 4, minAgeDays: 60 } });
      expect(changed.refunded.length).toBe(4);
      await sync(handle, path, db, zone, true);
      const orders = handle.truth('orders') as Order[];
      const enrolledLater = (handle.truth('customers') as Customer[]).filter((c) => registered.some((r) => r.id === c.id) && c.enrolled);
      // The case is there: a customer enrolled after an order of theirs.
      expect(enrolledLater.some((c) => orders.some((o) => o.customer?.id === c.id && o.created_at < c.enrolled_at!))).toBe(true);
      expectColumnsEqual(metrics(db), readmeMetrics(handle, zone, todayIn(zone), none));
      expect(metrics(db)).toEqual(metricsOfFullBuild(db, zone));

      // A member with several orders is deleted from the API; another leaves the program.
      const ordersOf = (id: number): number => orders.filter((o) => o.customer?.id === id).length;
      const members = (handle.truth('customers') as Customer[]).filter((c) => c.enrolled && ordersOf(c.id) >= 2);
      const edits = { removed: [members[0].id], unenrolled: [members[1].id] };
      editMirror(db, edits);
      updateLedger(db, { timeZone: zone, pointValue: null }, new Date());
      expectColumnsEqual(metrics(db), readmeMetrics(handle, zone, todayIn(zone), { removed: new Set(edits.removed), unenrolled: new Set(edits.unenrolled) }));
      expect(metrics(db)).toEqual(metricsOfFullBuild(db, zone));
      db.close();
    });
  }

  for (const profile of ['empty', 'single'] as const) {
    it(`in the ${profile} program`, async () => {
      const handle = (sim = await startSimulator({ profile }));
      const made = freshMirror();
      folders.push(made.dir);
      await sync(handle, made.path, made.db, 'Asia/Tokyo');
      const expected = readmeMetrics(handle, 'Asia/Tokyo', todayIn('Asia/Tokyo'), { removed: new Set(), unenrolled: new Set() });
      if (profile === 'empty') expect(expected).toEqual([]);
      expectColumnsEqual(metrics(made.db), expected);
      made.db.close();
    });
  }
});
