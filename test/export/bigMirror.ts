import { openDatabase, type Db } from '../../src/db/open.js';

/** A transactions mirror of `rows` rows written by direct inserts (seconds, not a sync), with API-shaped raw JSON. */
export function bigTransactionsMirror(path: string, rows: number): Db {
  const db = openDatabase(path);
  const insert = db.prepare(
    `INSERT INTO transactions (id, customer_id, customer_merchant_id, customer_email, points_approved, points_pending, resource,
       activity_id, activity_state, activity_value, created_at, raw, _synced_at, _change_seq)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)`,
  );
  const base = Date.UTC(2026, 0, 1);
  db.transaction(() => {
    for (let id = 1; id <= rows; id += 1) {
      const customerId = 1 + ((id * 7919) % 5000);
      const email = `customer.${customerId}@example.com`;
      const points = ((id * 37) % 400) - 100;
      const createdAt = new Date(base + id * 7000).toISOString();
      const record = {
        id,
        customer: { id: customerId, merchant_id: `cust-${customerId}`, email, points_approved: 1000 + points },
        points_approved: points,
        points_pending: 0,
        created_at: createdAt,
        resource: 'order',
        activity: { id: id + 5_000_000, state: 'approved', value: points, rule: { id: 3, name: 'Order placed', title: `Points for order #${id}, thanks "friend"` } },
      };
      insert.run(id, customerId, `cust-${customerId}`, email, points, 0, 'order', id + 5_000_000, 'approved', points, createdAt, JSON.stringify(record), createdAt);
    }
  })();
  return db;
}
