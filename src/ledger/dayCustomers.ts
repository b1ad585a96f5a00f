import type { Db } from '../db/open.js';

/**
 * ledger_day_customers: the customers with a customer_points_daily row on each day, one blob a day. The members'
 * figures walk days of customers: an update's active members read the 30 days before the first day it rebuilds,
 * which as customer_points_daily's keys was 380,000 index entries on the bench and most of an update; as one blob a
 * day they are 30 rows read whole. Kept by customer_points_daily's rebuild, in the same transaction, from the same
 * day on. Each id is 8 bytes, big-endian two's complement, written by SQL (migration 018 too): the mirror's ids are
 * safe integers (a mistyped one is stored as NULL), which 8 bytes hold exactly.
 */

const ID_BYTES = 8;

/**
 * Brings the days of `from` and later up to customer_points_daily as it now stands. Only the days whose customers
 * differ are written: the state in a bucket ships every row a sync's update wrote.
 */
export function rewriteDayCustomers(db: Db, from: string): void {
  db.prepare('DELETE FROM ledger_day_customers WHERE day >= @from AND day NOT IN (SELECT day FROM customer_points_daily WHERE day >= @from)').run({ from });
  db.prepare(
    `INSERT INTO ledger_day_customers (day, customers)
     SELECT day, unhex(group_concat(printf('%016x', customer_id), '' ORDER BY customer_id)) FROM customer_points_daily WHERE day >= ? GROUP BY day
     ON CONFLICT (day) DO UPDATE SET customers = excluded.customers WHERE customers IS NOT excluded.customers`,
  ).run(from);
}

/** Each day from `first` to `last` that has customers, in day order, with the number of its customers and the ids. */
export function* dayCustomers(db: Db, first: string, last: string): Generator<{ day: string; customers: CustomerIds }> {
  const rows = db.prepare('SELECT day, customers FROM ledger_day_customers WHERE day >= ? AND day <= ? ORDER BY day').raw().iterate(first, last) as IterableIterator<[string, Buffer]>;
  for (const [day, blob] of rows) yield { day, customers: new CustomerIds(blob) };
}

/** How many customers each day from `from` on has. */
export function customersByDay(db: Db, from: string): Map<string, number> {
  const rows = db.prepare(`SELECT day, length(customers) / ${ID_BYTES} FROM ledger_day_customers WHERE day >= ?`).raw().all(from) as Array<[string, number]>;
  return new Map(rows);
}

/** One day's customer ids, read from the blob as they are asked for. */
export class CustomerIds {
  private readonly view: DataView;
  readonly length: number;

  constructor(blob: Buffer) {
    if (blob.length % ID_BYTES !== 0) throw new Error(`ledger_day_customers holds ${blob.length} bytes for a day, not whole ${ID_BYTES}-byte customer ids: the mirror was changed outside loyalty-sync`);
    this.view = new DataView(blob.buffer, blob.byteOffset, blob.length);
    this.length = blob.length / ID_BYTES;
  }

  at(index: number): number {
    const offset = index * ID_BYTES;
    return this.view.getInt32(offset) * 4_294_967_296 + this.view.getUint32(offset + 4);
  }
}
