import type { SimulatorHandle } from '../../src/simulator/index.js';

/**
 * The three model tables as the simulator's truth says they must be, computed here from its records with plain
 * loops and a fresh Intl formatter per zone: nothing of src/ledger is used, so a mistake there cannot hide here.
 */

interface TruthTransaction {
  customer: { id: number };
  points_approved: number;
  points_pending: number;
  created_at: string;
  resource: string;
  activity?: { state: string; rule: { name: string } };
}
export interface TruthCustomer {
  id: number;
  enrolled: boolean;
  enrolled_at: string | null;
  created_at: string;
  loyalty_tier_membership: { loyalty_tier: { name: string } } | null;
}
export interface TruthOrder {
  customer: { id: number } | null;
  created_at: string;
  total_paid: string;
  total_refunded: string;
}

const DAY_MS = 86_400_000;
/** The calendar day `days` after `day`. */
export const shift = (day: string, days: number): string => new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** What the simulator did, in the terms of the README's classification table. */
function movementOf(t: TruthTransaction): string {
  const net = t.points_approved + t.points_pending;
  if (t.resource === 'claimed_reward') return net < 0 ? 'redeemed' : 'reimbursed';
  if (t.resource === 'points_import') return net < 0 ? 'reversed' : 'earned';
  if (t.resource !== 'activity' || t.activity === undefined) return 'other';
  const state = t.activity.state;
  if (state === 'void' || state === 'declined') return 'reversed';
  if (state === 'approved' && t.points_pending < 0 && t.points_approved === -t.points_pending) return 'approval';
  if (state !== 'approved' && state !== 'pending') return 'other';
  if (net >= 0) return 'earned';
  return t.activity.rule.name.toLowerCase().includes('expir') ? 'expired' : 'reversed';
}

const cents = (text: string): number => Math.round(Number(text) * 100);
const money = (value: number): string => (value / 100).toFixed(2);

export interface ExpectedTables {
  points_ledger_daily: Array<Record<string, unknown>>;
  customer_points_daily: Array<Record<string, unknown>>;
  program_metrics_daily: Array<Record<string, unknown>>;
}

export function expectedTables(sim: Pick<SimulatorHandle, 'truth'>, timeZone: string, today: string, pointValueCents: number | null = null): ExpectedTables {
  const format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
  const dayOf = (iso: string): string => format.format(new Date(iso));
  const transactions = sim.truth('transactions') as TruthTransaction[];
  const customers = sim.truth('customers') as TruthCustomer[];
  const orders = sim.truth('orders') as TruthOrder[];

  const perCustomerDay = new Map<string, { customer_id: number; day: string; approved_change: number; pending_change: number; transactions: number }>();
  const perDay = new Map<string, Record<string, number>>();
  for (const t of transactions) {
    const day = dayOf(t.created_at);
    const key = `${t.customer.id} ${day}`;
    const cell = perCustomerDay.get(key) ?? { customer_id: t.customer.id, day, approved_change: 0, pending_change: 0, transactions: 0 };
    cell.approved_change += t.points_approved;
    cell.pending_change += t.points_pending;
    cell.transactions += 1;
    perCustomerDay.set(key, cell);
    const totals = perDay.get(day) ?? { earned: 0, reversed: 0, redeemed: 0, reimbursed: 0, expired: 0, other: 0, approved_from_pending: 0, approved: 0, pending: 0, transactions: 0 };
    const movement = movementOf(t);
    if (movement === 'approval') totals.approved_from_pending += t.points_approved;
    else totals[movement] += t.points_approved + t.points_pending;
    totals.approved += t.points_approved;
    totals.pending += t.points_pending;
    totals.transactions += 1;
    perDay.set(day, totals);
  }

  const customerRows = [...perCustomerDay.values()].sort((a, b) => a.customer_id - b.customer_id || (a.day < b.day ? -1 : 1));
  const customer_points_daily: Array<Record<string, unknown>> = [];
  const running = new Map<number, { approved: number; pending: number }>();
  for (const row of customerRows) {
    const balance = running.get(row.customer_id) ?? { approved: 0, pending: 0 };
    balance.approved += row.approved_change;
    balance.pending += row.pending_change;
    running.set(row.customer_id, balance);
    customer_points_daily.push({ ...row, approved_end: balance.approved, pending_end: balance.pending });
  }

  const days: string[] = [];
  const first = [...perDay.keys()].sort()[0];
  if (first !== undefined) for (let day = first; day <= today; day = shift(day, 1)) days.push(day);
  const points_ledger_daily: Array<Record<string, unknown>> = [];
  let approved = 0;
  let pending = 0;
  for (const day of days) {
    const totals = perDay.get(day);
    const approvedEnd = approved + (totals?.approved ?? 0);
    const pendingEnd = pending + (totals?.pending ?? 0);
    points_ledger_daily.push({
      day,
      approved_start: approved,
      approved_end: approvedEnd,
      pending_start: pending,
      pending_end: pendingEnd,
      earned: totals?.earned ?? 0,
      reversed: totals?.reversed ?? 0,
      redeemed: totals?.redeemed ?? 0,
      reimbursed: totals?.reimbursed ?? 0,
      expired: totals?.expired ?? 0,
      other: totals?.other ?? 0,
      approved_from_pending: totals?.approved_from_pending ?? 0,
      transactions: totals?.transactions ?? 0,
      customers: customerRows.filter((row) => row.day === day).length,
      liability_end: pointValueCents === null ? null : money(approvedEnd * pointValueCents),
    });
    approved = approvedEnd;
    pending = pendingEnd;
  }

  const memberDay = new Map<number, string>();
  for (const c of customers) if (c.enrolled) memberDay.set(c.id, dayOf(c.enrolled_at ?? c.created_at));
  const movementDays = new Map<number, string[]>();
  for (const row of customerRows) movementDays.set(row.customer_id, [...(movementDays.get(row.customer_id) ?? []), row.day]);
  const orderDays = orders.map((o) => ({ customer: o.customer?.id ?? null, day: dayOf(o.created_at), revenue: cents(o.total_paid) - cents(o.total_refunded) }));
  const tiers: Record<string, number> = {};
  for (const c of customers) {
    const name = c.loyalty_tier_membership?.loyalty_tier.name ?? '';
    tiers[name] = (tiers[name] ?? 0) + 1;
  }
  const sortedTiers = Object.fromEntries(Object.entries(tiers).sort(([a], [b]) => (a < b ? -1 : 1)));

  // The metrics' days: from the first day of a transaction, an order or an enrolment, to today (or the last of them).
  const sourceDays = [...perDay.keys(), ...memberDay.values(), ...orderDays.map((o) => o.day)].sort();
  const metricDays: string[] = [];
  if (sourceDays.length > 0) {
    const last = sourceDays[sourceDays.length - 1] > today ? sourceDays[sourceDays.length - 1] : today;
    for (let day = sourceDays[0]; day <= last; day = shift(day, 1)) metricDays.push(day);
  }

  const program_metrics_daily = metricDays.map((day) => {
    const window30 = shift(day, -29);
    const window90 = shift(day, -89);
    const ledgerWindow = points_ledger_daily.filter((row) => (row.day as string) >= window30 && (row.day as string) <= day);
    const earned = ledgerWindow.reduce((sum, row) => sum + (row.earned as number), 0);
    const redeemed = 0 - ledgerWindow.reduce((sum, row) => sum + (row.redeemed as number), 0);
    const isMember = (customer: number | null, on: string): boolean => customer !== null && memberDay.has(customer) && memberDay.get(customer)! <= on;
    const todays = orderDays.filter((o) => o.day === day);
    const memberOrders = todays.filter((o) => isMember(o.customer, o.day));
    const revenue = todays.reduce((sum, o) => sum + o.revenue, 0);
    const memberRevenue = memberOrders.reduce((sum, o) => sum + o.revenue, 0);
    const repeat = (asMember: boolean): number | null => {
      const counts = new Map<number, number>();
      for (const o of orderDays) {
        if (o.customer === null || o.day < window90 || o.day > day || isMember(o.customer, o.day) !== asMember) continue;
        counts.set(o.customer, (counts.get(o.customer) ?? 0) + 1);
      }
      return counts.size === 0 ? null : [...counts.values()].filter((n) => n >= 2).length / counts.size;
    };
    return {
      day,
      members: [...memberDay.values()].filter((d) => d <= day).length,
      new_members: [...memberDay.values()].filter((d) => d === day).length,
      // Members on the day only; first-day rows have fewer than 30 days of ledger before them, which is all there is.
      active_members_30d: [...memberDay.keys()].filter((id) => isMember(id, day) && (movementDays.get(id) ?? []).some((d) => d >= window30 && d <= day)).length,
      points_earned_30d: earned,
      points_redeemed_30d: redeemed,
      redemption_rate_30d: earned > 0 ? redeemed / earned : null,
      orders: todays.length,
      revenue: money(revenue),
      member_orders: memberOrders.length,
      member_revenue: money(memberRevenue),
      member_order_share: todays.length > 0 ? memberOrders.length / todays.length : null,
      member_revenue_share: revenue > 0 ? memberRevenue / revenue : null,
      repeat_rate_members_90d: repeat(true),
      repeat_rate_others_90d: repeat(false),
      customers_by_tier: day === today ? JSON.stringify(sortedTiers) : null,
    };
  });
  return { points_ledger_daily, customer_points_daily, program_metrics_daily };
}
