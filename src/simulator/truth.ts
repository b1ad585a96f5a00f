import type { Row } from './model.js';
import type { StreamDef, StreamDefs } from './streams.js';
import type { Store } from './store.js';
import type { StreamName } from './types.js';

function visible<T extends Row>(rows: readonly T[], def: StreamDef<T>, tick: number): unknown[] {
  const out: unknown[] = [];
  for (const row of rows) if (row.visibleAt <= tick) out.push(JSON.parse(def.serialize(row)));
  return out;
}

/** Every visible record of a stream, through the same serialiser as the list endpoints, by id ascending. */
export function truth(store: Store, streams: StreamDefs, stream: StreamName): unknown[] {
  switch (stream) {
    case 'customers':
      return visible(store.customers, streams.customers, store.tick);
    case 'orders':
      return visible(store.orders, streams.orders, store.tick);
    case 'activities':
      return visible(store.activities, streams.activities, store.tick);
    case 'transactions':
      return visible(store.transactions, streams.transactions, store.tick);
    case 'unsubscribes':
      return store.unsubscribes.map((entry) => ({ ...entry }));
  }
}
