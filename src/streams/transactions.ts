import { col, CUSTOMER_SUMMARY_COLUMNS, type StreamDefinition } from './types.js';

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
    col('activity_id', 'integer', 'activity', 'id'),
    col('activity_state', 'text', 'activity', 'state'),
    col('activity_value', 'integer', 'activity', 'value'),
    col('created_at', 'timestamp'),
  ],
};
