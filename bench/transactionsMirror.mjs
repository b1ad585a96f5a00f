// What the export and publish benchmarks share: the 1,000,000-row transactions mirror (built once, kept in
// .bench-data), and the reference they measure CSV against.
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, statSync } from 'node:fs';

export const COLUMNS = ['id', 'customer_id', 'customer_merchant_id', 'customer_email', 'points_approved', 'points_pending', 'resource', 'activity_id', 'activity_state', 'activity_value', 'created_at', 'raw', '_synced_at', '_change_seq'];

export /** A transactions mirror filled by direct inserts, with raw JSON shaped like the API's. */
async function buildMirror(path, rows) {
  try {
    if (statSync(path).size > 0) return;
  } catch {
    // not built yet
  }
  const { openDatabase } = await import('../dist/db/open.js');
  const start = performance.now();
  const db = openDatabase(path);
  const insert = db.prepare(`INSERT INTO transactions (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`);
  const syncedAt = '2026-03-01T12:00:00.000Z';
  db.transaction(() => {
    for (let id = 1; id <= rows; id += 1) {
      const record = transactionRecord(id, new Date(BASE + id * 7_000).toISOString());
      const { customer, activity } = record;
      insert.run(id, customer.id, customer.merchant_id, customer.email, record.points_approved, record.points_pending, record.resource, activity?.id ?? null, activity?.state ?? null, activity?.value ?? null, record.created_at, JSON.stringify(record), syncedAt, 1);
    }
  })();
  db.close();
  console.log(`built ${rows.toLocaleString('en-US')}-row transactions mirror in ${((performance.now() - start) / 1000).toFixed(1)} s`);
}

const BASE = Date.UTC(2026, 0, 1);
const STATES = ['approved', 'pending', 'void', 'expired'];
const RESOURCES = ['order', 'manual', 'signup', 'review', 'referral'];

/** Transaction `id` as the API would send it (9 in 10 embed their activity), created at `createdAt`. */
export function transactionRecord(id, createdAt) {
  const customerId = 1 + ((id * 7919) % 50_000);
  const approved = ((id * 37) % 400) - 100;
  const pending = id % 5 === 0 ? 25 : 0;
  const state = STATES[id % STATES.length];
  return {
    id,
    customer: { id: customerId, merchant_id: `cust-${customerId}`, email: `customer.${customerId}@example.com`, points_pending: pending, points_approved: 1000 + approved, points_spent: 200 },
    points_approved: approved,
    points_pending: pending,
    created_at: createdAt,
    resource: RESOURCES[id % RESOURCES.length],
    ...(id % 10 !== 0 ? { activity: { id: id + 5_000_000, state, value: approved, rule: { id: 10 + (id % 7), name: 'Order placed', title: `Earn points for order #${id}, thank you!` } } } : {}),
  };
}

/** Milliseconds `sqlite3 -csv -header` takes to write the same columns of the table to `out`. */
export function timeSqliteCsv(dbPath, out) {
  const fd = openSync(out, 'w');
  const start = performance.now();
  const result = spawnSync('sqlite3', ['-csv', '-header', dbPath, `SELECT ${COLUMNS.join(', ')} FROM transactions ORDER BY rowid`], { stdio: ['ignore', fd, 'pipe'] });
  const ms = performance.now() - start;
  closeSync(fd);
  if (result.status !== 0) throw new Error(`sqlite3 failed: ${result.stderr}`);
  return ms;
}
