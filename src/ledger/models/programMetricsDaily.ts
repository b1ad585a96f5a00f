import type { Db } from '../../db/open.js';
import { ExactDecimal } from '../exactDecimal.js';
import { addDays, createdAtLowerBound } from '../localDay.js';
import { column, type ModelDefinition } from './types.js';

/** The windows of the rolling figures, in days ending with the row's day. */
const ACTIVITY_WINDOW_DAYS = 30;
const REPEAT_WINDOW_DAYS = 90;

interface OrderRow {
  day: string | null;
  customer_id: number | null;
  total_paid: string | null;
  total_refunded: string | null;
  member_day: string | null;
}

/** How the program does, by day: one row per day of points_ledger_daily (which is rebuilt first). */
export const programMetricsDaily: ModelDefinition = {
  name: 'program_metrics_daily',
  key: ['day'],
  touchedBy: ['transactions', 'orders', 'members'],
  columns: [
    column('day', 'date', 'a day of points_ledger_daily'),
    column('members', 'integer', 'customers enrolled now whose enrolment (enrolled_at, else created_at) is on or before the day'),
    column('new_members', 'integer', 'of those, the ones enrolled that day'),
    column('active_members_30d', 'integer', 'members with a transaction in the 30 days ending with the day'),
    column('points_earned_30d', 'integer', 'points_ledger_daily.earned over the 30 days ending with the day'),
    column('points_redeemed_30d', 'integer', 'points spent on rewards over those 30 days, as a positive number (−redeemed)'),
    column('redemption_rate_30d', 'real', 'points_redeemed_30d ÷ points_earned_30d; null when nothing was earned', true),
    column('orders', 'integer', 'orders created that day, cancelled ones included'),
    column('revenue', 'decimal', "the sum of those orders' total_paid − total_refunded, as the orders stand now"),
    column('member_orders', 'integer', 'orders of that day by customers who were members that day'),
    column('member_revenue', 'decimal', 'the revenue of those orders'),
    column('member_order_share', 'real', 'member_orders ÷ orders; null without orders', true),
    column('member_revenue_share', 'real', 'member_revenue ÷ revenue; null when revenue is not positive', true),
    column('repeat_rate_members_90d', 'real', 'of the members with an order in the 90 days ending with the day, the share with two or more; null when none', true),
    column('repeat_rate_others_90d', 'real', 'the same for customers who were not members on the day; null when none', true),
    column('customers_by_tier', 'json', 'on today\'s row only (the API keeps no tier history): customers per tier name, as a JSON object; null on other days', true),
  ],
  rebuildFrom({ db, localDay, today }, from) {
    db.prepare('DELETE FROM program_metrics_daily WHERE day >= ?').run(from);
    const days = (db.prepare('SELECT day, earned, redeemed FROM points_ledger_daily WHERE day >= ? ORDER BY day').all(addDays(from, 1 - ACTIVITY_WINDOW_DAYS)) as Array<{
      day: string;
      earned: number;
      redeemed: number;
    }>);
    if (days.length === 0) return;
    const index = new Map(days.map((row, i) => [row.day, i]));
    const firstRow = days.findIndex((row) => row.day >= from);
    if (firstRow === -1) return;

    const members = memberCounts(db, days.map((row) => row.day));
    const active = windowCounts(days.length, index, activeMemberDays(db, days[0].day), ACTIVITY_WINDOW_DAYS);
    const sales = orderFigures(db, days.map((row) => row.day), index, localDay);
    const tiers = JSON.stringify(
      Object.fromEntries(
        (db.prepare("SELECT coalesce(tier_name, '') AS tier, count(*) AS customers FROM customers WHERE _removed_at IS NULL GROUP BY tier ORDER BY tier").all() as Array<{ tier: string; customers: number }>).map(
          (row) => [row.tier, row.customers],
        ),
      ),
    );

    const insert = db.prepare(
      `INSERT INTO program_metrics_daily (day, members, new_members, active_members_30d, points_earned_30d, points_redeemed_30d, redemption_rate_30d,
         orders, revenue, member_orders, member_revenue, member_order_share, member_revenue_share, repeat_rate_members_90d, repeat_rate_others_90d, customers_by_tier)
       VALUES (@day, @members, @newMembers, @active, @earned, @redeemed, @rate, @orders, @revenue, @memberOrders, @memberRevenue, @memberOrderShare,
         @memberRevenueShare, @repeatMembers, @repeatOthers, @tiers)`,
    );
    let earned = 0;
    let redeemed = 0;
    for (let i = 0; i < days.length; i++) {
      earned += days[i].earned;
      redeemed -= days[i].redeemed;
      if (i >= ACTIVITY_WINDOW_DAYS) {
        earned -= days[i - ACTIVITY_WINDOW_DAYS].earned;
        redeemed += days[i - ACTIVITY_WINDOW_DAYS].redeemed;
      }
      if (i < firstRow) continue;
      const day = days[i].day;
      const sale = sales.days[i];
      insert.run({
        day,
        members: members.total[i],
        newMembers: members.added[i],
        active: active[i],
        earned,
        redeemed,
        rate: earned > 0 ? redeemed / earned : null,
        orders: sale.orders,
        revenue: sale.revenue.toString(),
        memberOrders: sale.memberOrders,
        memberRevenue: sale.memberRevenue.toString(),
        memberOrderShare: sale.orders > 0 ? sale.memberOrders / sale.orders : null,
        memberRevenueShare: sale.revenue.isPositive() ? sale.memberRevenue.toNumber() / sale.revenue.toNumber() : null,
        repeatMembers: share(sales.repeatMembers.twice[i], sales.repeatMembers.once[i]),
        repeatOthers: share(sales.repeatOthers.twice[i], sales.repeatOthers.once[i]),
        tiers: day === today ? tiers : null,
      });
    }
  },
};

function share(part: number, whole: number): number | null {
  return whole > 0 ? part / whole : null;
}

/** Members as of each day, and those enrolled that day, from ledger_members (kept by the update). */
function memberCounts(db: Db, days: readonly string[]): { total: number[]; added: number[] } {
  const byDay = db.prepare('SELECT member_day AS day, count(*) AS members FROM ledger_members GROUP BY member_day ORDER BY member_day').all() as Array<{ day: string; members: number }>;
  const total: number[] = [];
  const added: number[] = [];
  let next = 0;
  let running = 0;
  for (const day of days) {
    let today = 0;
    while (next < byDay.length && byDay[next].day <= day) {
      running += byDay[next].members;
      if (byDay[next].day === day) today = byDay[next].members;
      next++;
    }
    total.push(running);
    added.push(today);
  }
  return { total, added };
}

/**
 * Each member's days with a movement from `first` on, customer by customer, in day order. Read member by member
 * (CROSS JOIN keeps that order), each by the table's key from `first`: the other way round, an update would walk the
 * whole key of customer_points_daily to find the few days it rebuilds.
 */
function* activeMemberDays(db: Db, first: string): Generator<[customer: number, day: string]> {
  const rows = db
    .prepare(
      `SELECT m.customer_id, c.day FROM ledger_members AS m CROSS JOIN customer_points_daily AS c ON c.customer_id = m.customer_id AND c.day >= ?
       ORDER BY m.customer_id, c.day`,
    )
    .raw()
    .iterate(first) as IterableIterator<[number, string]>;
  yield* rows;
}

/**
 * For each row of the days, how many customers had at least one event in the `window` days ending with it.
 * Each customer adds one over the union of [event, event + window − 1]; a difference array keeps it linear.
 */
function windowCounts(length: number, index: ReadonlyMap<string, number>, events: Iterable<[number, string]>, window: number): number[] {
  const diff = new Array<number>(length + 1).fill(0);
  let customer: number | null = null;
  let coveredTo = -1;
  for (const [who, day] of events) {
    const at = index.get(day);
    if (at === undefined) continue;
    if (who !== customer) {
      customer = who;
      coveredTo = -1;
    }
    const start = Math.max(at, coveredTo + 1);
    const end = Math.min(at + window - 1, length - 1);
    if (start <= end) {
      diff[start] += 1;
      diff[end + 1] -= 1;
    }
    coveredTo = Math.max(coveredTo, end);
  }
  const counts: number[] = [];
  let running = 0;
  for (let i = 0; i < length; i++) counts.push((running += diff[i]));
  return counts;
}

interface DaySales {
  orders: number;
  revenue: ExactDecimal;
  memberOrders: number;
  memberRevenue: ExactDecimal;
}

/** Orders, revenue and repeat purchases per day, from the orders made in the window before the first row and after. */
function orderFigures(db: Db, days: readonly string[], index: ReadonlyMap<string, number>, localDay: (timestamp: string | null) => string | null) {
  const sales: DaySales[] = days.map(() => ({ orders: 0, revenue: ExactDecimal.ZERO, memberOrders: 0, memberRevenue: ExactDecimal.ZERO }));
  const repeatFrom = addDays(days[0], 1 - REPEAT_WINDOW_DAYS);
  // Orders by customer and day; members and others apart, since one customer is each on different days.
  const memberOrders: Array<[number, number]> = [];
  const otherOrders: Array<[number, number]> = [];
  const rows = db
    .prepare(
      `SELECT local_day(o.created_at) AS day, o.customer_id, o.total_paid, o.total_refunded, m.member_day
       FROM orders AS o LEFT JOIN ledger_members AS m ON m.customer_id = o.customer_id
       WHERE o.created_at >= ? AND o._removed_at IS NULL`,
    )
    .iterate(createdAtLowerBound(repeatFrom, localDay)) as IterableIterator<OrderRow>;
  const firstDay = days[0];
  for (const row of rows) {
    if (row.day === null || row.day < repeatFrom) continue;
    const member = row.member_day !== null && row.member_day <= row.day;
    // Days before the first row count only towards the repeat windows: map them to negative offsets.
    const at = index.get(row.day) ?? (row.day < firstDay ? -dayDistance(row.day, firstDay) : undefined);
    if (at === undefined) continue;
    if (row.customer_id !== null) (member ? memberOrders : otherOrders).push([row.customer_id, at]);
    if (at < 0) continue;
    const sale = sales[at];
    const revenue = (ExactDecimal.parse(row.total_paid) ?? ExactDecimal.ZERO).minus(ExactDecimal.parse(row.total_refunded) ?? ExactDecimal.ZERO);
    sale.orders += 1;
    sale.revenue = sale.revenue.plus(revenue);
    if (member) {
      sale.memberOrders += 1;
      sale.memberRevenue = sale.memberRevenue.plus(revenue);
    }
  }
  return { days: sales, repeatMembers: repeatCounts(memberOrders, days.length), repeatOthers: repeatCounts(otherOrders, days.length) };
}

function dayDistance(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/**
 * Per row, customers with one or more orders in the 90 days ending with it (`once`) and with two or more (`twice`).
 * A customer has two in the window ending on d when two of their orders t1 ≤ t2 satisfy t2 ≤ d ≤ t1 + 89.
 */
function repeatCounts(orders: Array<[number, number]>, length: number): { once: number[]; twice: number[] } {
  orders.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const once = new Array<number>(length + 1).fill(0);
  const twice = new Array<number>(length + 1).fill(0);
  let customer: number | null = null;
  let onceTo = -Infinity;
  let twiceTo = -Infinity;
  let previous = 0;
  const cover = (diff: number[], start: number, end: number, coveredTo: number): number => {
    const from = Math.max(start, coveredTo + 1, 0);
    const to = Math.min(end, length - 1);
    if (from <= to) {
      diff[from] += 1;
      diff[to + 1] -= 1;
    }
    return Math.max(coveredTo, end);
  };
  for (const [who, at] of orders) {
    if (who !== customer) {
      customer = who;
      onceTo = -Infinity;
      twiceTo = -Infinity;
    } else {
      twiceTo = cover(twice, at, previous + REPEAT_WINDOW_DAYS - 1, twiceTo);
    }
    onceTo = cover(once, at, at + REPEAT_WINDOW_DAYS - 1, onceTo);
    previous = at;
  }
  const prefix = (diff: number[]): number[] => {
    let running = 0;
    return diff.slice(0, length).map((value) => (running += value));
  };
  return { once: prefix(once), twice: prefix(twice) };
}
