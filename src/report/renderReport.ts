import { ledgerVerdict, type LedgerVerdict } from '../ledger/ledgerChecks.js';
import type { ReportFigures } from './reportFigures.js';
import { divergingBars, escapeHtml, formatInteger, lineChart } from './svgCharts.js';

export interface ReportContext {
  /** program.timeZone: what a day on the page is. */
  timeZone: string;
  /** ledger.pointValue, for the liability note; null without one. */
  pointValue: string | null;
  generatedAt: string;
}

const COLORS = {
  approved: '#1f5fa8',
  pending: '#e0a526',
  earned: '#2e8b57',
  reimbursed: '#7cc08f',
  reversed: '#b23b3b',
  redeemed: '#6a4c9c',
  expired: '#8c8c8c',
  other: '#d08cc0',
};

/**
 * One self-contained HTML page: inline CSS and SVG, no script, no link to anything. Every figure the
 * page shows in a KPI or a table carries `data-figure` and its raw `data-value`, so a test (or a
 * reader's tool) finds it without parsing formatted text.
 */
export function renderReport(figures: ReportFigures, context: ReportContext): string {
  const last = figures.outstanding.at(-1);
  const hasLiability = figures.outstanding.some((day) => day.liability !== null);
  const kpis = [
    kpi('Approved points outstanding', 'approved-outstanding', last?.approved ?? 0, formatInteger(last?.approved ?? 0), last ? `end of ${last.day}` : 'no ledger yet'),
    kpi('Pending points', 'pending-outstanding', last?.pending ?? 0, formatInteger(last?.pending ?? 0), 'awaiting approval'),
    ...(hasLiability && last?.liability != null ? [kpi('Liability (approved × point value)', 'liability', last.liability, money(last.liability), `one point = ${escapeHtml(context.pointValue ?? '')}`)] : []),
    kpi('Redemption rate, last 30 days', 'redemption-rate-30d', figures.latest?.redemptionRate30d ?? '', percent(figures.latest?.redemptionRate30d ?? null), figures.latest ? `${formatInteger(figures.latest.redeemed30d)} of ${formatInteger(figures.latest.earned30d)} earned` : ''),
    kpi('Members', 'members', figures.latest?.members ?? 0, formatInteger(figures.latest?.members ?? 0), figures.latest ? `${formatInteger(figures.latest.activeMembers30d)} active in 30 days` : ''),
  ].join('');

  const days = figures.outstanding.map((day) => day.day);
  const outstandingChart = lineChart('Outstanding points by day', days, [
    { label: 'Approved', color: COLORS.approved, values: figures.outstanding.map((day) => day.approved) },
    { label: 'Pending', color: COLORS.pending, values: figures.outstanding.map((day) => day.pending) },
  ]);
  const months = figures.months.map((month) => month.month);
  const movementsChart = divergingBars('Movements by month', months, [
    { label: 'Earned', color: COLORS.earned, values: figures.months.map((m) => m.earned) },
    { label: 'Reimbursed', color: COLORS.reimbursed, values: figures.months.map((m) => m.reimbursed) },
    { label: 'Reversed', color: COLORS.reversed, values: figures.months.map((m) => m.reversed) },
    { label: 'Redeemed', color: COLORS.redeemed, values: figures.months.map((m) => m.redeemed) },
    { label: 'Expired', color: COLORS.expired, values: figures.months.map((m) => m.expired) },
    { label: 'Other', color: COLORS.other, values: figures.months.map((m) => m.other) },
  ]);

  const movementRows = figures.months
    .map((m) => {
      const cell = (name: string, value: number): string => `<td class="num" data-figure="${name}-${m.month}" data-value="${value}">${formatInteger(value)}</td>`;
      const rate = m.earned > 0 ? -m.redeemed / m.earned : null;
      return `<tr><th scope="row">${m.month}</th>${cell('earned', m.earned)}${cell('reversed', m.reversed)}${cell('redeemed', m.redeemed)}${cell('reimbursed', m.reimbursed)}${cell('expired', m.expired)}${cell('other', m.other)}${cell('approved-from-pending', m.approvedFromPending)}<td class="num">${percent(rate)}</td></tr>`;
    })
    .join('');
  const salesRows = figures.sales
    .map(
      (s) =>
        `<tr><th scope="row">${s.month}</th><td class="num">${formatInteger(s.orders)}</td><td class="num">${formatInteger(s.memberOrders)}</td><td class="num">${money(s.revenue)}</td><td class="num">${money(s.memberRevenue)}</td><td class="num" data-figure="member-revenue-share-${s.month}" data-value="${s.memberRevenueShare ?? ''}">${percent(s.memberRevenueShare)}<span class="bar" style="width:${Math.round((s.memberRevenueShare ?? 0) * 80)}px"></span></td></tr>`,
    )
    .join('');
  const tierTotal = figures.tiers.reduce((sum, t) => sum + t.customers, 0);
  const tierRows = figures.tiers
    .map(
      (t) =>
        `<tr><th scope="row">${t.tier === '' ? '<em>no tier</em>' : escapeHtml(t.tier)}</th><td class="num" data-figure="tier-${escapeHtml(t.tier)}" data-value="${t.customers}">${formatInteger(t.customers)}</td><td class="num">${percent(tierTotal > 0 ? t.customers / tierTotal : null)}<span class="bar" style="width:${tierTotal > 0 ? Math.round((t.customers / tierTotal) * 120) : 0}px"></span></td></tr>`,
    )
    .join('');

  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<link rel="icon" href="data:,">
<title>Loyalty points report${last ? ` — ${last.day}` : ''}</title>
<style>${CSS}</style></head>
<body>
<header><h1>Loyalty points report</h1>
<p class="meta">Ledger to <span data-figure="last-day" data-value="${last?.day ?? ''}">${last?.day ?? '—'}</span> · days in ${escapeHtml(context.timeZone)} · generated ${escapeHtml(context.generatedAt)} by loyalty-sync from the mirror's points ledger</p></header>
<section class="kpis">${kpis}</section>
${reconciliationSection(figures)}
<section><h2>Outstanding points by day</h2>${outstandingChart}
<p class="note">Approved points are spendable and the liability; pending points become approved or are declined. Each day ends with the sum of every transaction up to then.</p></section>
<section><h2>Movements by month</h2>${movementsChart}
<table><thead><tr><th>Month</th><th>Earned</th><th>Reversed</th><th>Redeemed</th><th>Reimbursed</th><th>Expired</th><th>Other</th><th>Approved from pending</th><th>Redeemed ÷ earned</th></tr></thead><tbody>${movementRows}</tbody></table>
<p class="note">Points taken away are negative. Approved from pending moves points between the balances and is not a movement.</p></section>
<section class="two"><div><h2>Members' share of revenue</h2>
<table><thead><tr><th>Month</th><th>Orders</th><th>Members' orders</th><th>Revenue</th><th>Members' revenue</th><th>Members' share</th></tr></thead><tbody>${salesRows}</tbody></table>
<p class="note">Revenue is total paid less total refunded, as the orders stand now.</p></div>
<div><h2>Tiers</h2>${figures.tiers.length === 0 ? '<p class="empty">No customers yet.</p>' : `<table><thead><tr><th>Tier</th><th>Customers</th><th>Share</th></tr></thead><tbody>${tierRows}</tbody></table>`}
<p class="note">Today only: the API keeps no tier history.</p></div></section>
</body></html>
`;
}

function kpi(label: string, name: string, value: string | number, shown: string, note: string): string {
  return `<div class="kpi"><div class="label">${escapeHtml(label)}</div><div class="value" data-figure="${name}" data-value="${escapeHtml(String(value))}">${shown}</div><div class="sub">${note}</div></div>`;
}

/** How each verdict shows: "Balanced" only when some customer was compared (a check of nobody is grey, not green). */
const VERDICTS: Record<LedgerVerdict, { value: string; style: string; headline: string; note: string }> = {
  balanced: { value: 'ok', style: 'ok', headline: 'Balanced', note: '' },
  defects: { value: 'defects', style: 'defects', headline: '', note: '' },
  'not reconciled': {
    value: 'not-reconciled',
    style: 'none',
    headline: 'Not reconciled',
    note: ' No customer&#39;s balance could be compared yet: every difference waits for a sync (for example, the customers stream was never synced).',
  },
  'nothing to reconcile': { value: 'nothing', style: 'none', headline: 'Nothing to reconcile', note: ' The mirror holds no customer and no transaction.' },
};

function reconciliationSection(figures: ReportFigures): string {
  const check = figures.reconciliation;
  if (check === null) return '<section class="recon none"><h2>Reconciliation</h2><p>No reconciliation has run yet: <code>loyalty-sync verify --ledger</code> checks that every customer\'s transactions add up to their balances.</p></section>';
  const verdict = VERDICTS[ledgerVerdict(check)];
  const examples = check.examples
    .slice(0, 10)
    .map((d) => {
      if (d.customer_id === null) return `<li>no customer, ${d.balance}: transactions that name no customer add up to ${formatInteger(d.transactions)}, counted in the outstanding points and in no balance</li>`;
      const shows = d.customer === null ? 'the customers stream holds no record of them' : `the customer shows ${formatInteger(d.customer)}`;
      return `<li>customer ${d.customer_id}, ${d.balance}: ${shows}, the transactions add up to ${formatInteger(d.transactions)}</li>`;
    })
    .join('');
  const headline = verdict.value === 'defects' ? `${formatInteger(check.defects)} defect(s)` : verdict.headline;
  return `<section class="recon ${verdict.style}"><h2>Reconciliation</h2>
<p data-figure="reconciliation" data-value="${verdict.value}"><strong>${headline}</strong> — checked ${escapeHtml(check.checked_at)}:
<span data-figure="reconciliation-customers" data-value="${check.customers}">${formatInteger(check.customers)}</span> customers, <span data-figure="reconciliation-balanced" data-value="${check.balanced}">${formatInteger(check.balanced)}</span> balanced, ${formatInteger(check.pending)} pending (a read in flight), <span data-figure="reconciliation-defects" data-value="${check.defects}">${formatInteger(check.defects)}</span> defects.${verdict.note}</p>
${examples === '' ? '' : `<ul>${examples}</ul>`}</section>`;
}

function percent(share: number | null): string {
  return share === null ? '—' : `${(share * 100).toFixed(1)}%`;
}

/** Exact decimal text with thousands separators; the digits are the ledger's, never rounded through a float. */
function money(text: string): string {
  const [whole, fraction] = text.split('.');
  const negative = whole.startsWith('-');
  const digits = negative ? whole.slice(1) : whole;
  return `${negative ? '−' : ''}${digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${fraction === undefined ? '' : `.${fraction}`}`;
}

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#1d2430;background:#f5f6f8;margin:0;padding:24px 32px;max-width:1180px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:16px;margin:0 0 10px}
.meta,.note{color:#5b6472;font-size:12.5px}
section{background:#fff;border:1px solid #dde1e7;border-radius:8px;padding:16px 18px;margin:14px 0}
.kpis{display:flex;gap:12px;flex-wrap:wrap;background:none;border:0;padding:0}
.kpi{flex:1 1 180px;background:#fff;border:1px solid #dde1e7;border-radius:8px;padding:12px 14px}
.kpi .label{font-size:12px;color:#5b6472;text-transform:uppercase;letter-spacing:.03em}
.kpi .value{font-size:24px;font-weight:600;font-variant-numeric:tabular-nums;margin:2px 0}
.kpi .sub{font-size:12px;color:#5b6472}
.recon.ok{border-left:5px solid #2e8b57}.recon.defects{border-left:5px solid #b23b3b}.recon.none{border-left:5px solid #8c8c8c}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums;margin-top:8px}
th,td{padding:4px 8px;border-bottom:1px solid #eceff3;text-align:left}thead th{font-size:12px;color:#5b6472;font-weight:600}
td.num{text-align:right;white-space:nowrap}
.bar{display:inline-block;height:8px;background:#1f5fa8;opacity:.55;margin-left:6px;vertical-align:middle;border-radius:2px}
.two{display:grid;grid-template-columns:2fr 1fr;gap:24px}
.chart{width:100%;height:auto}.chart .grid{stroke:#eceff3}.chart .zero{stroke:#9aa3ae}.chart .axis{font-size:11px;fill:#5b6472}
.empty{color:#5b6472;font-style:italic}
@media print{body{background:#fff}section{break-inside:avoid}}
`;
