import { transactionsCsv } from './csv.js';
import type { Filters, SortField } from './cursor.js';
import type { ListView } from './listing.js';
import type { Activity, Customer, Order, Row, Transaction } from './model.js';
import { activityJson, customerJson, orderJson, transactionJson } from './serialize.js';
import type { Store } from './store.js';
import type { ServedDrift } from './types.js';

/** Query parameters that become filters; each stream accepts the ones the spec gives it. */
export type FilterParam = 'email' | 'created_at' | 'updated_at' | 'customer_id';

/** A paged stream declared as data: the list route runs them all. */
export interface StreamDef<T extends Row> {
  /** The key of the array in the response, which also names the stream inside its cursors. */
  listKey: string;
  /** The spec gives 100 for customers and activities and leaves the others open. */
  defaultLimit: number;
  /** The activities list's error bodies carry no code in the spec. */
  errorsWithCode: boolean;
  filterParams: readonly FilterParam[];
  sortable: boolean;
  view(store: Store, sort: SortField): ListView<T>;
  serialize(row: T): string;
  /** Only transactions offer `format=csv`. */
  csv?: (rows: readonly T[]) => string;
}

function createdWithin(createdAt: number, filters: Filters): boolean {
  if (filters.createdMin !== undefined && createdAt < filters.createdMin) return false;
  return filters.createdMax === undefined || createdAt < filters.createdMax;
}

function aboveSinceId(id: number, filters: Filters): boolean {
  return filters.sinceId === undefined || id > filters.sinceId;
}

const idKey = (row: Row): number[] => [row.id];

function byIdView<T extends Row & { createdAt: number }>(rows: readonly T[], extra?: (row: T, filters: Filters) => boolean): ListView<T> {
  return {
    rows,
    sort: 'id',
    key: idKey,
    matches: (row, filters) => aboveSinceId(row.id, filters) && createdWithin(row.createdAt, filters) && (extra === undefined || extra(row, filters)),
  };
}

function customerMatches(c: Customer, f: Filters): boolean {
  if (!aboveSinceId(c.id, f) || !createdWithin(c.createdAt, f)) return false;
  if (f.updatedMin !== undefined && c.updatedAt < f.updatedMin) return false;
  if (f.updatedMax !== undefined && c.updatedAt >= f.updatedMax) return false;
  return f.email === undefined || c.email.toLowerCase().includes(f.email.toLowerCase());
}

/** Customers re-sorted by updated_at, rebuilt only when some customer's updated_at moved. */
class UpdatedAtIndex {
  private version = -1;
  private sorted: Customer[] = [];

  rows(store: Store): Customer[] {
    if (this.version !== store.customersVersion) {
      this.sorted = [...store.customers].sort((a, b) => a.updatedAt - b.updatedAt || a.id - b.id);
      this.version = store.customersVersion;
    }
    return this.sorted;
  }
}

export interface StreamDefs {
  customers: StreamDef<Customer>;
  orders: StreamDef<Order>;
  activities: StreamDef<Activity>;
  transactions: StreamDef<Transaction>;
}

/** One set per simulator, because the updated_at index caches per store; `drift.current` is read per record served. */
export function streamDefs(drift: { current: ServedDrift }): StreamDefs {
  const updatedAtIndex = new UpdatedAtIndex();
  return {
    customers: {
      listKey: 'customers',
      defaultLimit: 100,
      errorsWithCode: true,
      filterParams: ['email', 'created_at', 'updated_at'],
      sortable: true,
      view: (store, sort) =>
        sort === 'id'
          ? { rows: store.customers, sort, key: idKey, matches: customerMatches }
          : { rows: updatedAtIndex.rows(store), sort, key: (c) => [c.updatedAt, c.id], matches: customerMatches },
      serialize: customerJson,
    },
    orders: {
      listKey: 'orders',
      defaultLimit: 50,
      errorsWithCode: true,
      filterParams: [],
      sortable: false,
      view: (store) => byIdView(store.orders),
      serialize: (order) => orderJson(order, drift.current),
    },
    activities: {
      listKey: 'activities',
      defaultLimit: 100,
      errorsWithCode: false,
      filterParams: ['created_at'],
      sortable: false,
      view: (store) => byIdView(store.activities),
      serialize: activityJson,
    },
    transactions: {
      listKey: 'transactions',
      defaultLimit: 50,
      errorsWithCode: true,
      filterParams: ['created_at', 'customer_id'],
      sortable: false,
      view: (store) => byIdView(store.transactions, (t, f) => f.customerId === undefined || t.customer.id === f.customerId),
      serialize: transactionJson,
      csv: transactionsCsv,
    },
  };
}
