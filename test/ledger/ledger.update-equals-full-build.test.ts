import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/db/open.js';
import { nextChangeSeq, type ApiRecord } from '../../src/db/upsertRecords.js';
import { updateLedger, type LedgerSettings } from '../../src/ledger/updateLedger.js';
import { upsert } from '../export/helpers.js';
import { freshMirror } from '../helpers/tempDir.js';

/**
 * Seeded runs of syncs of every kind the ledger follows, each followed by an update that must leave the three tables
 * exactly as a full build of the same mirror writes them (and the balances after each customer's last row, which an
 * update starts from, as the full build's are): new and late-visible transactions on old days, written
 * with and without offsets, as dates alone or a day ahead; odd ones (no customer, absent points, unknown resources
 * and states); refunds of old orders, old and removed orders, orders without amounts or customer; enrolments that
 * come and go, removed customers, customers whose created_at moves; transactions and orders whose created_at moves, later or earlier; removed and re-stored transactions; and gaps of
 * days between syncs, across DST changes, in zones west and east of UTC, with half-hour DST and quarter-hour offsets.
 * A failure prints LEDGER_SEED, the zone and the syncs that led to it.
 */
const ZONES = ['UTC', 'America/New_York', 'Asia/Tokyo', 'Australia/Lord_Howe', 'Asia/Kathmandu'];
const SEEDS = 4;
const SYNCS = 10;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const TABLES = {
  points_ledger_daily: 'SELECT * FROM points_ledger_daily ORDER BY day',
  customer_points_daily: 'SELECT * FROM customer_points_daily ORDER BY customer_id, day',
  program_metrics_daily: 'SELECT * FROM program_metrics_daily ORDER BY day',
  ledger_balances: 'SELECT * FROM ledger_balances ORDER BY customer_id',
  ledger_day_customers: 'SELECT day, hex(customers) AS customers FROM ledger_day_customers ORDER BY day',
};

/** What ledger_balances must hold: each customer's first day, and the balances of their last row. */
const LAST_ROWS = `SELECT f.customer_id, f.first_day, c.approved_end, c.pending_end
  FROM (SELECT customer_id, min(day) AS first_day, max(day) AS last_day FROM customer_points_daily GROUP BY customer_id) AS f
  JOIN customer_points_daily AS c ON c.customer_id = f.customer_id AND c.day = f.last_day ORDER BY f.customer_id`;

function tables(db: Db): Record<string, unknown[]> {
  return Object.fromEntries(Object.entries(TABLES).map(([name, sql]) => [name, db.prepare(sql).all()]));
}

/** xorshift32: the same syncs for the same seed. */
function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 4_294_967_296;
  };
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** The instant `ms` in one of the ISO forms the API may send: with `Z`, with an offset, with a space, or `+00:00`. */
function timestamp(ms: number, r: () => number): string {
  const form = Math.floor(r() * 5);
  if (form <= 1) return new Date(ms).toISOString();
  if (form === 4) return `${new Date(ms).toISOString().slice(0, 19)}+00:00`;
  const offsets = [-300, -240, 540, 330, 345, -570, 840, -720, 60];
  const offset = offsets[Math.floor(r() * offsets.length)];
  const local = new Date(ms + offset * 60_000);
  const date = `${local.getUTCFullYear()}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}`;
  const time = `${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}`;
  const sign = offset < 0 ? '-' : '+';
  return `${date}${form === 2 ? 'T' : ' '}${time}${sign}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
}

interface Customer {
  id: number;
  enrolled: boolean;
  enrolled_at: string | null;
  created_at: string;
  tier: string | null;
}

/** One seeded run in `zone`: the syncs made, and the first difference between the updated tables and a full build, if any. */
function run(seed: number, zone: string): { log: string[]; difference: string | null } {
  const r = random(seed);
  const { db, dir } = freshMirror();
  const settings: LedgerSettings = { timeZone: zone, pointValue: '0.01' };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(r() * items.length)];
  let now = Date.UTC(2026, 2, 1, 12) + Math.floor(r() * 300) * HOUR;
  let nextTransaction = 1000;
  let nextOrder = 5000;
  const customers = new Map<number, Customer>();
  const transactions: ApiRecord[] = [];
  const orders: ApiRecord[] = [];

  const store = (stream: 'customers' | 'transactions' | 'orders', records: ApiRecord[]): void => upsert(db, stream, records, new Date(now).toISOString());
  const markRemoved = (table: string, id: unknown): void => {
    db.transaction(() => {
      const at = new Date(now).toISOString();
      db.prepare(`UPDATE ${table} SET _removed_at = ?, _synced_at = ?, _change_seq = ? WHERE id = ? AND _removed_at IS NULL`).run(at, at, nextChangeSeq(db), id);
    })();
  };
  const customerRecord = (c: Customer): ApiRecord => ({
    id: c.id,
    merchant_id: `m${c.id}`,
    email: `c${c.id}@example.com`,
    points_approved: 0,
    points_pending: 0,
    enrolled: c.enrolled,
    enrolled_at: c.enrolled_at,
    created_at: c.created_at,
    updated_at: new Date(now).toISOString(),
    loyalty_tier_membership: c.tier === null ? null : { loyalty_tier: { name: c.tier } },
  });
  const customerIds = (): number[] => [...customers.keys()];
  const newTransaction = (createdMs: number): ApiRecord => {
    const id = nextTransaction++;
    const base = { id, customer: { id: pick(customerIds()) }, created_at: timestamp(createdMs, r) };
    const kind = r();
    const points = 5 + Math.floor(r() * 20);
    const record: ApiRecord =
      kind < 0.5
        ? { ...base, points_approved: 0, points_pending: 10 + Math.floor(r() * 50), resource: 'activity', activity: { id, state: 'pending', rule: { name: 'Order placed' } } }
        : kind < 0.65
          ? { ...base, points_approved: points, points_pending: -points, resource: 'activity', activity: { id, state: 'approved', rule: { name: 'Order placed' } } }
          : kind < 0.75
            ? { ...base, points_approved: -points, points_pending: 0, resource: 'claimed_reward' }
            : kind < 0.85
              ? { ...base, points_approved: -points, points_pending: 0, resource: 'activity', activity: { id, state: 'approved', rule: { name: 'Points expiration' } } }
              : kind < 0.92
                ? { ...base, points_approved: 20, points_pending: 0, resource: 'points_import' }
                : { ...base, points_approved: points, points_pending: 0, resource: 'gift_card' };
    transactions.push(record);
    return record;
  };
  const newOrder = (createdMs: number, odd: boolean): ApiRecord => {
    const id = nextOrder++;
    const order: ApiRecord = odd
      ? { id, merchant_id: `o${id}`, total_paid: r() < 0.5 ? null : '3.10', total_refunded: r() < 0.5 ? null : '1.05', created_at: timestamp(createdMs, r), customer: r() < 0.3 ? null : { id: pick(customerIds()) } }
      : { id, merchant_id: `o${id}`, total_paid: `${Math.floor(r() * 100)}.50`, total_refunded: '0.00', created_at: timestamp(createdMs, r), customer: r() < 0.9 ? { id: pick(customerIds()) } : null };
    orders.push(order);
    return order;
  };

  for (let id = 1; id <= 8; id++) {
    const created = now - Math.floor(r() * 200) * DAY;
    customers.set(id, {
      id,
      enrolled: r() < 0.7,
      enrolled_at: r() < 0.5 ? timestamp(created + Math.floor(r() * 10) * DAY, r) : null,
      created_at: timestamp(created, r),
      tier: pick(['Gold', 'Silver', null]),
    });
  }
  store('customers', [...customers.values()].map(customerRecord));
  store('transactions', Array.from({ length: 40 }, () => newTransaction(now - Math.floor(r() * 150 * 24) * HOUR)));
  store('orders', Array.from({ length: 15 }, () => newOrder(now - Math.floor(r() * 150 * 24) * HOUR, false)));
  updateLedger(db, settings, new Date(now));

  const log: string[] = [];
  let difference: string | null = null;
  for (let sync = 0; sync < SYNCS && difference === null; sync++) {
    now += Math.floor(r() * 60) * HOUR;
    const changes: string[] = [];
    for (let k = 1 + Math.floor(r() * 3); k > 0; k--) {
      const op = Math.floor(r() * 14);
      if (op === 0) {
        store('transactions', Array.from({ length: 5 }, () => newTransaction(now - Math.floor(r() * 48) * HOUR)));
        changes.push('five recent transactions');
      } else if (op === 1) {
        const late = newTransaction(now - Math.floor(r() * 100 * 24) * HOUR);
        store('transactions', [late]);
        changes.push(`a late-visible transaction ${String(late.created_at)}`);
      } else if (op === 2) {
        const order = pick(orders);
        order.total_refunded = order.total_paid;
        store('orders', [order]);
        changes.push(`order ${String(order.id)} of ${String(order.created_at)} refunded`);
      } else if (op === 3) {
        const order = newOrder(now - Math.floor(r() * 200 * 24) * HOUR, false);
        store('orders', [order]);
        changes.push(`an old order ${String(order.created_at)}`);
      } else if (op === 4) {
        const customer = customers.get(pick(customerIds())) as Customer;
        customer.enrolled = !customer.enrolled;
        if (customer.enrolled) customer.enrolled_at = timestamp(now - Math.floor(r() * 90) * DAY, r);
        store('customers', [customerRecord(customer)]);
        changes.push(`customer ${customer.id} enrolled ${customer.enrolled} at ${String(customer.enrolled_at)}`);
      } else if (op === 5) {
        const id = pick(customerIds());
        markRemoved('customers', id);
        changes.push(`customer ${id} removed`);
      } else if (op === 6) {
        const transaction = pick(transactions);
        markRemoved('transactions', transaction.id);
        changes.push(`transaction ${String(transaction.id)} removed`);
      } else if (op === 7) {
        const order = pick(orders);
        markRemoved('orders', order.id);
        changes.push(`order ${String(order.id)} removed`);
      } else if (op === 8) {
        const id = nextTransaction++;
        const odd: ApiRecord = {
          id,
          customer: r() < 0.5 ? null : { id: pick(customerIds()) },
          created_at: r() < 0.5 ? new Date(now - Math.floor(r() * 20) * DAY).toISOString().slice(0, 10) : timestamp(now + Math.floor(r() * 40) * HOUR, r),
          resource: r() < 0.5 ? 'activity' : 'points_import',
          ...(r() < 0.5 ? { activity: { id, state: pick(['void', 'declined', 'expired', null, 'approved']) } } : {}),
          ...(r() < 0.5 ? { points_approved: -5 } : {}),
          ...(r() < 0.5 ? { points_pending: 7 } : {}),
        };
        transactions.push(odd);
        store('transactions', [odd]);
        changes.push(`an odd transaction ${JSON.stringify(odd)}`);
      } else if (op === 9) {
        const transaction = pick(transactions);
        store('transactions', [{ ...transaction, note: `seen at sync ${sync}` }]);
        changes.push(`transaction ${String(transaction.id)} stored again`);
      } else if (op === 10) {
        now += Math.floor(r() * 20) * DAY;
        changes.push('days without a sync');
      } else if (op === 11) {
        const order = newOrder(now + Math.floor(r() * 60) * HOUR - 30 * HOUR, true);
        store('orders', [order]);
        changes.push(`an odd order ${JSON.stringify(order)}`);
      } else if (op === 13) {
        // A source that corrects a date: the row leaves its old day, later or earlier, for another.
        const [stream, records] = r() < 0.5 ? (['transactions', transactions] as const) : (['orders', orders] as const);
        const record = pick(records);
        const was = Date.parse(String(record.created_at).replace(' ', 'T'));
        record.created_at = timestamp((Number.isNaN(was) ? now : was) + (r() < 0.7 ? 1 : -1) * (1 + Math.floor(r() * 60 * 24)) * HOUR, r);
        store(stream, [record]);
        changes.push(`${stream} ${String(record.id)} moved to ${String(record.created_at)}`);
      } else {
        const customer = customers.get(pick(customerIds())) as Customer;
        customer.tier = pick(['Gold', 'Bronze', null]);
        customer.created_at = timestamp(now - Math.floor(r() * 300) * DAY, r);
        store('customers', [customerRecord(customer)]);
        changes.push(`customer ${customer.id} created at ${customer.created_at}`);
      }
    }
    updateLedger(db, settings, new Date(now));
    log.push(`sync ${sync} at ${new Date(now).toISOString()}: ${changes.join('; ')}`);
    const copyPath = join(dir, `full-${sync}.db`);
    db.prepare('VACUUM INTO ?').run(copyPath);
    const copy = openDatabase(copyPath);
    copy.prepare('DELETE FROM ledger_state').run();
    updateLedger(copy, settings, new Date(now));
    const full = tables(copy);
    const lastRows = copy.prepare(LAST_ROWS).all();
    copy.close();
    if (JSON.stringify(lastRows) !== JSON.stringify(full.ledger_balances)) {
      difference = `ledger_balances of the full build: ${JSON.stringify(full.ledger_balances)}, not the last rows ${JSON.stringify(lastRows)}`;
      break;
    }
    const updated = tables(db);
    for (const name of Object.keys(TABLES)) {
      const rows = updated[name].length;
      const first = updated[name].findIndex((row, i) => JSON.stringify(row) !== JSON.stringify(full[name][i]));
      if (rows !== full[name].length || first >= 0) {
        difference = `${name}: updated ${rows} rows, full build ${full[name].length}; first different row ${JSON.stringify(updated[name][first])} against ${JSON.stringify(full[name][first])}`;
        break;
      }
    }
  }
  db.close();
  return { log, difference };
}

describe('the ledger updated sync after sync equals a full build of the same mirror', () => {
  for (const zone of ZONES) {
    it(`in ${zone}, over ${SEEDS} seeded runs of ${SYNCS} syncs`, () => {
      for (let seed = 1; seed <= SEEDS; seed++) {
        const { log, difference } = run(seed, zone);
        if (difference !== null) console.log(`LEDGER_SEED=${seed} zone ${zone}\n${log.join('\n')}`);
        expect(difference, `LEDGER_SEED=${seed} in ${zone}`).toBeNull();
      }
    });
  }
});
