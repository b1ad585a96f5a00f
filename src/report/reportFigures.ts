import type { Db } from '../db/open.js';
import { ExactDecimal } from '../ledger/exactDecimal.js';
import { lastLedgerCheck, type LedgerCheckRecord } from '../ledger/ledgerChecks.js';

/** One day of points_ledger_daily as the report charts it. */
export interface OutstandingDay {
  day: string;
  approved: number;
  pending: number;
  /** liability_end: exact decimal text; null without ledger.pointValue. */
  liability: string | null;
}

/** The movements of one calendar month (YYYY-MM): the sums of points_ledger_daily's movement columns. */
export interface MonthMovements {
  month: string;
  earned: number;
  reversed: number;
  redeemed: number;
  reimbursed: number;
  expired: number;
  other: number;
  approvedFromPending: number;
}

/** One month of program_metrics_daily: orders and revenue, and the members' part of them. */
export interface MonthSales {
  month: string;
  orders: number;
  memberOrders: number;
  /** Exact sums of the days' decimal texts, as decimal text. */
  revenue: string;
  memberRevenue: string;
  /** memberRevenue ÷ revenue; null when revenue is not positive. */
  memberRevenueShare: number | null;
}

/** Everything the report shows, read from the model tables and ledger_checks by SQL. */
export interface ReportFigures {
  /** The last day of the ledger (today in program.timeZone when it was built); null for an empty ledger. */
  lastDay: string | null;
  outstanding: OutstandingDay[];
  months: MonthMovements[];
  sales: MonthSales[];
  /** program_metrics_daily's row of the build's today (ledger_state.last_day), or its last before: the 30-day redemption figures and the members. */
  latest: { day: string; members: number; activeMembers30d: number; earned30d: number; redeemed30d: number; redemptionRate30d: number | null } | null;
  /** Customers per tier name (today's row of program_metrics_daily); empty when none. */
  tiers: Array<{ tier: string; customers: number }>;
  reconciliation: LedgerCheckRecord | null;
}

export function readReportFigures(db: Db): ReportFigures {
  const outstanding = db
    .prepare('SELECT day, approved_end AS approved, pending_end AS pending, liability_end AS liability FROM points_ledger_daily ORDER BY day')
    .all() as OutstandingDay[];
  const months = db
    .prepare(
      `SELECT substr(day, 1, 7) AS month, sum(earned) AS earned, sum(reversed) AS reversed, sum(redeemed) AS redeemed, sum(reimbursed) AS reimbursed,
              sum(expired) AS expired, sum(other) AS other, sum(approved_from_pending) AS approvedFromPending
       FROM points_ledger_daily GROUP BY month ORDER BY month`,
    )
    .all() as MonthMovements[];
  const sales = monthSales(db);
  // The build's today, not the table's last row: an order, transaction or enrolment dated later (a wrong import, an
  // API clock ahead) extends the table past today, and 30 days ending on such a day leave out what moved so far.
  const latest = db
    .prepare(
      `SELECT day, members, active_members_30d AS activeMembers30d, points_earned_30d AS earned30d, points_redeemed_30d AS redeemed30d,
              redemption_rate_30d AS redemptionRate30d
       FROM program_metrics_daily WHERE day <= coalesce((SELECT last_day FROM ledger_state WHERE id = 1), '9999-12-31') ORDER BY day DESC LIMIT 1`,
    )
    .get() as ReportFigures['latest'] | undefined;
  const tierJson = db.prepare('SELECT customers_by_tier FROM program_metrics_daily WHERE customers_by_tier IS NOT NULL ORDER BY day DESC LIMIT 1').pluck().get() as string | undefined;
  const tiers = Object.entries(tierJson === undefined ? {} : (JSON.parse(tierJson) as Record<string, number>)).map(([tier, customers]) => ({ tier, customers }));
  return { lastDay: outstanding.at(-1)?.day ?? null, outstanding, months, sales, latest: latest ?? null, tiers, reconciliation: lastLedgerCheck(db) };
}

/**
 * Orders and revenue by month. The money is summed exactly, in decimal, as program_metrics_daily holds it (SQLite
 * would add it as REAL, which rounds amounts past 2^53 cents); only the share is a float.
 */
function monthSales(db: Db): MonthSales[] {
  const days = db
    .prepare('SELECT substr(day, 1, 7) AS month, orders, member_orders AS memberOrders, revenue, member_revenue AS memberRevenue FROM program_metrics_daily ORDER BY day')
    .all() as Array<{ month: string; orders: number; memberOrders: number; revenue: string; memberRevenue: string }>;
  const months: Array<{ month: string; orders: number; memberOrders: number; revenue: ExactDecimal; memberRevenue: ExactDecimal }> = [];
  for (const day of days) {
    let month = months.at(-1);
    if (month?.month !== day.month) months.push((month = { month: day.month, orders: 0, memberOrders: 0, revenue: ExactDecimal.ZERO, memberRevenue: ExactDecimal.ZERO }));
    month.orders += day.orders;
    month.memberOrders += day.memberOrders;
    month.revenue = month.revenue.plus(ExactDecimal.parse(day.revenue) ?? ExactDecimal.ZERO);
    month.memberRevenue = month.memberRevenue.plus(ExactDecimal.parse(day.memberRevenue) ?? ExactDecimal.ZERO);
  }
  return months.map(({ month, orders, memberOrders, revenue, memberRevenue }) => ({
    month,
    orders,
    memberOrders,
    revenue: revenue.toString(),
    memberRevenue: memberRevenue.toString(),
    memberRevenueShare: revenue.isPositive() ? memberRevenue.toNumber() / revenue.toNumber() : null,
  }));
}
