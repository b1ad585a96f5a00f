import type { Db } from '../../db/open.js';
import { dayCustomers } from '../dayCustomers.js';
import { ExactDecimal } from '../exactDecimal.js';
import { PointsBeyondExactError } from '../exactPoints.js';
import { addDays, createdAtLowerBound, daysBetween } from '../localDay.js';
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

/**
 * How the program does, by day: one row per day from the first transaction's, order's or membership's day to today
 * (points_ledger_daily, whose earned and redeemed points it sums, is rebuilt first).
 */
export const programMetricsDaily: ModelDefinition = {
  name: 'program_metrics_daily',
  key: ['day'],
  touchedBy: ['transactions', 'orders', 'members'],
  columns: [
    column('day', 'date', "a calendar day in program.timeZone, every day from the earliest of the first transaction's, order's and enrolment's days to today"),
    column('members', 'integer', 'customers enrolled now whose enrolment (enrolled_at, else created_at) is on or before the day'),
    column('new_members', 'integer', 'of those, the ones enrolled that day'),
    column('active_members_30d', 'integer', 'of the members that day, those with a transaction in the 30 days ending with it (one before their enrolment counts from their enrolment day)'),
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
    const span = metricsSpan(db, localDay, today);
    if (span === null) return;
    const start = from > span.first ? from : span.first;
    if (start > span.last) return;
    // The 30-day figures of the first row rebuilt reach back 29 days (nothing moved before the span's first day).
    const windowStart = addDays(start, 1 - ACTIVITY_WINDOW_DAYS);
    const days = daysBetween(windowStart > span.first ? windowStart : span.first, span.last);
    const index = new Map(days.map((day, i) => [day, i]));
    const firstRow = index.get(start) as number;
    // points_ledger_daily starts at the first transaction's day: the days before it moved no points.
    const ledger = new Map(
      (db.prepare('SELECT day, earned, redeemed FROM points_ledger_daily WHERE day >= ?').all(days[0]) as Array<{ day: string; earned: number; redeemed: number }>).map(
        (row) => [row.day, row],
      ),
    );

    const memberList = readMembers(db, days);
    const members = memberCounts(memberList, days.length);
    const active = activeMemberCounts(db, days, index, memberList);
    const sales = orderFigures(db, days, index, localDay);
    const tiers = JSON.stringify(customersByTier(db));

    const insert = db.prepare(
      `INSERT INTO program_metrics_daily (day, members, new_members, active_members_30d, points_earned_30d, points_redeemed_30d, redemption_rate_30d,
         orders, revenue, member_orders, member_revenue, member_order_share, member_revenue_share, repeat_rate_members_90d, repeat_rate_others_90d, customers_by_tier)
       VALUES (@day, @members, @newMembers, @active, @earned, @redeemed, @rate, @orders, @revenue, @memberOrders, @memberRevenue, @memberOrderShare,
         @memberRevenueShare, @repeatMembers, @repeatOthers, @tiers)`,
    );
    let earned = 0;
    let redeemed = 0;
    for (let i = 0; i < days.length; i++) {
      const moved = ledger.get(days[i]);
      earned += moved?.earned ?? 0;
      redeemed -= moved?.redeemed ?? 0;
      const left = i >= ACTIVITY_WINDOW_DAYS ? ledger.get(days[i - ACTIVITY_WINDOW_DAYS]) : undefined;
      earned -= left?.earned ?? 0;
      redeemed += left?.redeemed ?? 0;
      if (!Number.isSafeInteger(earned) || !Number.isSafeInteger(redeemed)) {
        throw new PointsBeyondExactError(`the points earned or redeemed in the ${ACTIVITY_WINDOW_DAYS} days to ${days[i]}`, Math.max(Math.abs(earned), Math.abs(redeemed)));
      }
      if (i < firstRow) continue;
      const day = days[i];
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

/**
 * Today's customers the API still has, by tier name (none: ''). Grouped by the column itself, which the index
 * customers_tier holds in order, so no customer's row is read; a customer with no tier and one with an empty name
 * are the same ''.
 */
function customersByTier(db: Db): Record<string, number> {
  // A Map, so that a tier named like a property of every object (__proto__) is a tier like any other.
  const byTier = new Map<string, number>();
  const rows = db.prepare('SELECT tier_name, count(*) FROM customers WHERE _removed_at IS NULL GROUP BY tier_name ORDER BY tier_name').raw().all() as Array<[string | null, number]>;
  for (const [tier, customers] of rows) byTier.set(tier ?? '', (byTier.get(tier ?? '') ?? 0) + customers);
  return Object.fromEntries(byTier);
}

function share(part: number, whole: number): number | null {
  return whole > 0 ? part / whole : null;
}

/** The members (ledger_members, kept by the update), each by the index of their membership day among the days. */
interface Members {
  /** A member's slot by their customer id. */
  slots: Map<number, number>;
  /** By slot: the index of the membership day; -1 for a day before the first (a member all along), the days' length for one after the last (not yet). */
  dayIndex: number[];
}

/**
 * Reads the members with their membership day as a number of days from the first of `days`, by membership day, each
 * day's members as one text: a row a member, with the day's text, cost more than the rest of the work (0.7 µs a
 * row, 35 ms for 50,000 members).
 */
function readMembers(db: Db, days: readonly string[]): Members {
  const slots = new Map<number, number>();
  const dayIndex: number[] = [];
  const byDay = db
    .prepare('SELECT CAST(round(julianday(member_day) - julianday(?)) AS INTEGER), group_concat(customer_id) FROM ledger_members GROUP BY member_day')
    .raw()
    .iterate(days[0]) as IterableIterator<[number | null, string]>;
  for (const [fromFirst, customers] of byDay) {
    // A day SQLite cannot read is no calendar day: none is written there, but it is then no member's yet.
    const at = fromFirst === null ? days.length : Math.min(Math.max(fromFirst, -1), days.length);
    for (const text of customers.split(',')) {
      slots.set(Number(text), dayIndex.length);
      dayIndex.push(at);
    }
  }
  return { slots, dayIndex };
}

/** Members as of each day, and those enrolled that day. */
function memberCounts(members: Members, length: number): { total: number[]; added: number[] } {
  const enrolled = new Array<number>(length).fill(0);
  // A member enrolled before the first day counts in every day's total, and as added on none.
  let running = 0;
  for (const at of members.dayIndex) {
    if (at < 0) running += 1;
    else if (at < length) enrolled[at] += 1;
  }
  const total: number[] = [];
  for (let i = 0; i < length; i++) total.push((running += enrolled[i]));
  return { total, added: enrolled };
}

/**
 * For each of the days (consecutive), how many members had a movement in the 30 days ending with it, counting a
 * member only from their membership day: each adds one over the union of [max(movement, membership day),
 * movement + 29]. A difference array keeps it linear; the movements come in day order, so each member's union so
 * far ends at the last day it covers. Starting at the membership day keeps a day's count within its members, and
 * confines a change of membership day to the days from the earlier of the old and new one, where an update rebuilds.
 * Each day's customers come as one blob (ledger_day_customers): a row a customer-day handed to JavaScript, and a
 * join with the members in SQL, cost a full build of a million customer-days of 50,000 members most of a second,
 * and an update (30 days of them) a third of one.
 */
function activeMemberCounts(db: Db, days: readonly string[], index: ReadonlyMap<string, number>, members: Members): number[] {
  const length = days.length;
  const diff = new Array<number>(length + 1).fill(0);
  const { slots } = members;
  // By slot, the last index a member's union so far covers: none yet, so the one before their membership day.
  const coveredTo = members.dayIndex.map((at) => Math.max(at, 0) - 1);
  if (slots.size === 0) return diff.slice(0, length);
  for (const { day, customers } of dayCustomers(db, days[0], days[length - 1])) {
    const at = index.get(day);
    if (at === undefined) continue;
    const end = Math.min(at + ACTIVITY_WINDOW_DAYS - 1, length - 1);
    for (let i = 0; i < customers.length; i++) {
      const slot = slots.get(customers.at(i));
      if (slot === undefined) continue;
      const start = Math.max(at, coveredTo[slot] + 1);
      if (start <= end) {
        diff[start] += 1;
        diff[end + 1] -= 1;
        coveredTo[slot] = end;
      }
    }
  }
  const counts: number[] = [];
  let running = 0;
  for (let i = 0; i < length; i++) counts.push((running += diff[i]));
  return counts;
}

/**
 * The days the metrics cover: from the earliest day of a transaction (points_ledger_daily's first), an order or a
 * membership, to today, or to the latest of those when later. Null when the mirror holds none of them.
 */
function metricsSpan(db: Db, localDay: (timestamp: string | null) => string | null, today: string): { first: string; last: string } | null {
  const ledger = db.prepare('SELECT (SELECT min(day) FROM points_ledger_daily) AS first, (SELECT max(day) FROM points_ledger_daily) AS last').get() as DaySpan;
  const members = db.prepare('SELECT min(member_day) AS first, max(member_day) AS last FROM ledger_members').get() as DaySpan;
  const spans = [ledger, members, orderSpan(db, localDay)].filter((span): span is { first: string; last: string } => span !== null && span.first !== null && span.last !== null);
  if (spans.length === 0) return null;
  return {
    first: spans.reduce((min, span) => (span.first < min ? span.first : min), spans[0].first),
    last: spans.reduce((max, span) => (span.last > max ? span.last : max), today),
  };
}

interface DaySpan {
  first: string | null;
  last: string | null;
}

/**
 * The first and last day of the orders, read by the created_at index from its two ends. A timestamp's text shows a
 * date less than a day from its instant's UTC date (offsets are under 24 hours), so an instant earlier than the
 * first text's is written with a date less than three days after it, and likewise at the other end: the days are
 * computed for those few texts only. The ends are the first texts with a day: an older mirror may hold a
 * 31 February, which has none.
 */
function orderSpan(db: Db, localDay: (timestamp: string | null) => string | null): DaySpan | null {
  const edge = (order: 'ASC' | 'DESC'): string | undefined => {
    const texts = db.prepare(`SELECT created_at FROM orders WHERE created_at IS NOT NULL AND _removed_at IS NULL ORDER BY created_at ${order}`).pluck().iterate() as IterableIterator<string>;
    for (const text of texts) if (localDay(text) !== null) return text;
    return undefined;
  };
  const firstText = edge('ASC');
  const lastText = edge('DESC');
  if (firstText === undefined || lastText === undefined) return null;
  const daysOf = (where: string, bound: string): string[] =>
    (db.prepare(`SELECT created_at FROM orders WHERE ${where} AND _removed_at IS NULL`).pluck().all(bound) as string[]).flatMap((text) => localDay(text) ?? []);
  const firstDays = daysOf('created_at < ?', addDays(firstText.slice(0, 10), 3));
  const lastDays = daysOf('created_at >= ?', addDays(lastText.slice(0, 10), -2));
  return { first: firstDays.reduce((min, day) => (day < min ? day : min)), last: lastDays.reduce((max, day) => (day > max ? day : max)) };
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
