import { col, CUSTOMER_SUMMARY_COLUMNS, CUSTOMER_SUMMARY_UNCOLUMNED, type StreamDefinition } from './types.js';

export const activities: StreamDefinition = {
  name: 'activities',
  endpoint: '/v2/activities',
  listKey: 'activities',
  keyType: 'integer',
  // State moves (pending → approved, void…) after creation; the list filters by created_at only.
  strategy: { kind: 'since-id', refresh: 'created-at-window' },
  columns: [
    col('merchant_id', 'text'),
    col('value', 'integer'),
    col('state', 'text'),
    ...CUSTOMER_SUMMARY_COLUMNS,
    col('rule_id', 'integer', 'rule', 'id'),
    col('rule_name', 'text', 'rule', 'name'),
    col('rule_title', 'text', 'rule', 'title'),
    col('flow_id', 'integer', 'flow', 'id'),
    col('flow_journey_id', 'integer', 'flow', 'journey_id'),
    col('flow_name', 'text', 'flow', 'name'),
    col('flow_block_id', 'text', 'flow', 'block_id'),
    col('resource', 'json'),
    col('created_at', 'timestamp'),
  ],
  uncolumnedFields: CUSTOMER_SUMMARY_UNCOLUMNED,
  noUpdateFilter: true,
  changeSignal: { from: 'transactions', idColumn: 'activity_id', stateColumn: 'activity_state', initialState: 'pending' },
};
