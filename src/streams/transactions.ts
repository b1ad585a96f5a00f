import { activities } from './activities.js';
import { col, CUSTOMER_SUMMARY_COLUMNS, CUSTOMER_SUMMARY_UNCOLUMNED, listedPaths, optional, type StreamDefinition } from './types.js';

export const transactions: StreamDefinition = {
  name: 'transactions',
  endpoint: '/v2/transactions',
  listKey: 'transactions',
  keyType: 'integer',
  // Immutable: once stored, a transaction never needs re-reading.
  strategy: { kind: 'since-id' },
  columns: [
    ...CUSTOMER_SUMMARY_COLUMNS,
    col('points_approved', 'integer'),
    col('points_pending', 'integer'),
    col('resource', 'text'),
    // The spec embeds the activity only when resource is `activity`.
    optional(col('activity_id', 'integer', 'activity', 'id')),
    optional(col('activity_state', 'text', 'activity', 'state')),
    optional(col('activity_value', 'integer', 'activity', 'value')),
    col('created_at', 'timestamp'),
  ],
  // The embedded activity is the activity object of the spec, whole.
  uncolumnedFields: [...CUSTOMER_SUMMARY_UNCOLUMNED, ...listedPaths(activities).map((path) => `activity.${path}`)],
};
