import { col, CUSTOMER_SUMMARY_COLUMNS, CUSTOMER_SUMMARY_UNCOLUMNED, type StreamDefinition } from './types.js';

export const orders: StreamDefinition = {
  name: 'orders',
  endpoint: '/v2/orders',
  listKey: 'orders',
  keyType: 'integer',
  // Orders take payments, refunds and cancellations after creation, and the list has no
  // updated_at filter: re-read from the oldest order inside the lookback window.
  strategy: { kind: 'since-id', refresh: 'from-oldest-id-in-window' },
  columns: [
    col('merchant_id', 'text'),
    col('merchant_number', 'text'),
    col('total', 'decimal'),
    col('total_tax', 'decimal'),
    col('total_shipping', 'decimal'),
    col('total_discounts', 'decimal'),
    col('total_paid', 'decimal'),
    col('total_refunded', 'decimal'),
    col('payment_status', 'text'),
    col('fulfillment_status', 'text'),
    col('refund_status', 'text'),
    col('cancellation_status', 'text'),
    col('ecom_source_url', 'text', 'metadata', 'ecom_source_url'),
    col('ecom_source_name', 'text', 'metadata', 'ecom_source_name'),
    col('ecom_location_id', 'integer', 'metadata', 'ecom_location_id'),
    ...CUSTOMER_SUMMARY_COLUMNS,
    col('created_at', 'timestamp'),
    col('updated_at', 'timestamp'),
  ],
  uncolumnedFields: CUSTOMER_SUMMARY_UNCOLUMNED,
  // A refund comes without a transaction, so only the deep refresh sees one older than the lookback window.
  noUpdateFilter: true,
  // api-spec.md part 2, Order (list item); fulfillment_status's set is not shown, so any value goes.
  enums: {
    payment_status: ['not_paid', 'partially_paid', 'paid'],
    refund_status: ['not_refunded', 'partially_refunded', 'refunded'],
    cancellation_status: ['cancelled', 'not_cancelled'],
  },
};
