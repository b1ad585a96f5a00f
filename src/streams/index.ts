import type { StreamName } from '../config.js';
import { activities } from './activities.js';
import { customers } from './customers.js';
import { orders } from './orders.js';
import { transactions } from './transactions.js';
import type { StreamDefinition } from './types.js';
import { unsubscribes } from './unsubscribes.js';

export { listedPaths, type ColumnSpec, type ColumnType, type StreamDefinition, type SyncStrategy } from './types.js';

/** Every stream, in the order a sync runs them. To add a stream: declare it, add a migration, list it here. */
export const STREAMS: Readonly<Record<StreamName, StreamDefinition>> = {
  customers,
  orders,
  activities,
  transactions,
  unsubscribes,
};

export function getStream(name: StreamName): StreamDefinition {
  return STREAMS[name];
}
