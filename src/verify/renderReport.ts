import { ledgerVerdict } from '../ledger/ledgerChecks.js';
import type { LedgerCheck, LedgerDifference } from '../ledger/reconcile.js';
import type { StreamVerifyResult, VerifyReport } from './types.js';

const COUNT = new Intl.NumberFormat('en-US');
/** Pending differences come and go with every sync: a few show what they are. */
const PENDING_SHOWN = 20;

/** The report as a table for a person at a terminal, with the ids of each difference below it. */
export function renderVerifyReport(report: VerifyReport): string {
  const header = ['stream', 'compared', 'missing', 'extra', 'stale', 'pending', report.streams.some((s) => s.repaired) ? 'repaired' : 'missing rows'];
  const rows = report.streams.map((s) => [
    s.stream,
    COUNT.format(s.compared),
    COUNT.format(s.missing_count),
    COUNT.format(s.extra_count),
    COUNT.format(s.stale_count),
    COUNT.format(s.pending.count),
    s.error !== undefined ? `FAILED: ${s.error}` : s.repaired ? describeRepair(s) : describeMissing(s),
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]): string =>
    cells.map((cell, i) => (i === 0 || i === cells.length - 1 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ').trimEnd();
  const ids = report.streams.flatMap(listIds);
  const mode = report.mode === 'full' ? 'full verify' : 'sampled verify';
  const pending = report.streams.reduce((sum, s) => sum + s.pending.count, 0);
  const verdict = report.ok
    ? `ok: no defect remains${pending > 0 ? `; ${COUNT.format(pending)} pending (listed above with the pass that brings them)` : ''}`
    : 'defects remain (or a stream could not be verified)';
  return [`${mode}, ${COUNT.format(report.requests)} requests`, line(header), ...rows.map(line), ...ids, renderLedgerCheck(report.ledger).trimEnd(), verdict, ''].join('\n');
}

/** The reconciliation: counts, what they mean when nothing could be compared, then one line per defect and per pending difference. */
export function renderLedgerCheck(check: LedgerCheck): string {
  const verdict = ledgerVerdict({ customers: check.customers, balanced: check.balanced, defects: check.defects.length });
  const lines = [
    `ledger: ${COUNT.format(check.customers)} customers, ${COUNT.format(check.balanced)} balanced, ${COUNT.format(check.pending.length)} pending, ${COUNT.format(check.defects.length)} defects`,
    ...(verdict === 'not reconciled' ? [`  not reconciled: none of the ${COUNT.format(check.customers)} customers could be compared yet (${check.pending[0].reason})`] : []),
    ...(verdict === 'nothing to reconcile' ? ['  nothing to reconcile: the mirror holds no customer and no transaction'] : []),
    ...(check.undated_transactions > 0
      ? [`  ${COUNT.format(check.undated_transactions)} transactions have a created_at that cannot be read (NULL in the mirror, the text in raw): no ledger day holds them, so their customers' balances differ`]
      : []),
    ...(check.unattributed_transactions > 0
      ? [`  ${COUNT.format(check.unattributed_transactions)} transactions name no customer: points_ledger_daily counts their points, no customer's balance does`]
      : []),
    ...check.defects.map((d) => `  defect: ${describeDifference(d)}`),
    ...check.pending.slice(0, PENDING_SHOWN).map((d) => `  pending: customer ${d.customer_id} ${d.balance}: ${d.customer ?? 'no record'} vs ${d.transactions} (${d.reason})`),
    ...(check.pending.length > PENDING_SHOWN ? [`  … and ${COUNT.format(check.pending.length - PENDING_SHOWN)} more pending (--json lists them all)`] : []),
  ];
  return `${lines.join('\n')}\n`;
}

/** e.g. `customer 7 approved: the customer shows 130, the transactions add up to 100`. */
export function describeDifference(d: LedgerDifference): string {
  if (d.customer_id === null) return `no customer ${d.balance}: transactions that name no customer add up to ${d.transactions}, in points_ledger_daily and in no balance`;
  const shows = d.customer === null ? 'the customers stream holds no record of the customer' : `the customer shows ${d.customer}`;
  const undated = d.undated_transactions === undefined ? '' : ` (${d.undated_transactions} more with an unreadable created_at are in no ledger day)`;
  return `customer ${d.customer_id} ${d.balance}: ${shows}, the transactions add up to ${d.transactions}${undated}`;
}

/** e.g. `0 of 9,500 compared missing (< 0.032% at 95%)`. */
export function describeMissing(s: StreamVerifyResult): string {
  const found = `${COUNT.format(s.missing_count)} of ${COUNT.format(s.compared)} compared missing`;
  if (s.missing_bound === null) return s.compared === 0 ? 'nothing compared' : found;
  return `${found} (< ${formatShare(s.missing_bound)} at 95%)`;
}

function describeRepair(s: StreamVerifyResult): string {
  const r = s.repaired!;
  return `${COUNT.format(r.inserted)} inserted, ${COUNT.format(r.updated)} updated, ${COUNT.format(r.removed)} marked removed`;
}

function formatShare(share: number): string {
  const percent = share * 100;
  return `${percent >= 1 ? percent.toFixed(1) : percent.toPrecision(2)}%`;
}

function listIds(s: StreamVerifyResult): string[] {
  const lines: string[] = [];
  const add = (kind: string, ids: ReadonlyArray<number | string>, count: number): void => {
    if (count === 0) return;
    const more = count > ids.length ? ` and ${COUNT.format(count - ids.length)} more` : '';
    lines.push(`${s.stream} ${kind}: ${ids.slice(0, 20).join(', ')}${ids.length > 20 ? ', …' : ''}${more}`);
  };
  add('missing', s.missing, s.missing_count);
  add('extra', s.extra, s.extra_count);
  add('stale', s.stale, s.stale_count);
  // Pending rows grouped by the pass that brings them and when; the report lists the first ID_LIST_CAP of them.
  const groups = new Map<string, Array<number | string>>();
  for (const row of s.pending.rows) {
    const label = `pending until the ${row.pass}${row.due === null ? '' : ` (due ${row.due})`}`;
    const ids = groups.get(label) ?? [];
    ids.push(row.id);
    groups.set(label, ids);
  }
  const unlisted = s.pending.count - s.pending.rows.length;
  for (const [label, ids] of groups) add(label, ids, ids.length);
  if (unlisted > 0) lines.push(`${s.stream} pending: ${COUNT.format(unlisted)} more not listed`);
  return lines;
}
