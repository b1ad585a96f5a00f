import type { Db } from '../db/open.js';

/**
 * The earliest day each source of the models touches since the build that included change `afterSeq`: new or
 * changed transactions (their own day; a row marked removed by verify --repair counts too), changed orders
 * (their day's revenue), the days a transaction or order was on before its created_at changed (ledger_moved_from,
 * noted by triggers as the sync wrote it, emptied here), and customers whose membership day moved (ledger_members,
 * updated here). Null: untouched. A full build (`full`) rebuilds every day anyway: it reads no transactions or
 * orders here, only brings the members up to date.
 */
export function touchedDays(db: Db, afterSeq: number, full: boolean): { transactions: string | null; orders: string | null; members: string | null } {
  const earliest = (table: 'transactions' | 'orders'): string | null => {
    if (full) return null;
    const changed = db.prepare(`SELECT min(local_day(created_at)) FROM ${table} WHERE _change_seq > ?`).pluck().get(afterSeq) as string | null;
    const movedFrom = db.prepare('SELECT min(local_day(created_at)) FROM ledger_moved_from WHERE source = ?').pluck().get(table) as string | null;
    return movedFrom === null || (changed !== null && changed < movedFrom) ? changed : movedFrom;
  };
  const touched = { transactions: earliest('transactions'), orders: earliest('orders'), members: updateMembers(db, afterSeq) };
  // Within the update's transaction: kept if the build fails, so the next one rebuilds those days.
  db.prepare('DELETE FROM ledger_moved_from').run();
  return touched;
}

/**
 * Brings ledger_members up to date with the customers changed since `afterSeq`, returning the earliest membership day
 * that appeared, moved or went. A member is an enrolled customer the API still has; their day is enrolled_at's
 * (created_at's when the API gives no enrolment time, or one with no day: a 31 February an older mirror holds).
 */
function updateMembers(db: Db, afterSeq: number): string | null {
  const changed = db
    .prepare(
      `SELECT c.id, CASE WHEN c.enrolled = 1 AND c._removed_at IS NULL THEN coalesce(local_day(c.enrolled_at), local_day(c.created_at)) END AS day, m.member_day AS was
       FROM customers AS c LEFT JOIN ledger_members AS m ON m.customer_id = c.id
       WHERE c._change_seq > ?`,
    )
    .raw()
    .iterate(afterSeq) as IterableIterator<[number, string | null, string | null]>;
  const upsert = db.prepare('INSERT INTO ledger_members (customer_id, member_day) VALUES (?, ?) ON CONFLICT (customer_id) DO UPDATE SET member_day = excluded.member_day');
  const remove = db.prepare('DELETE FROM ledger_members WHERE customer_id = ?');
  const moves: Array<[number, string | null]> = [];
  let earliest: string | null = null;
  for (const [id, day, was] of changed) {
    if (day === was) continue;
    moves.push([id, day]);
    for (const touched of [day, was]) if (touched !== null && (earliest === null || touched < earliest)) earliest = touched;
  }
  // Written after the read is done: better-sqlite3 refuses writes while an iterator of the same connection is open.
  for (const [id, day] of moves) {
    if (day === null) remove.run(id);
    else upsert.run(id, day);
  }
  return earliest;
}
