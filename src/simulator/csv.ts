import type { Transaction } from './model.js';
import { iso } from './time.js';

const HEADER = 'id,customer_id,customer_merchant_id,customer_email,points_approved,points_pending,created_at,resource,activity_id,activity_state';

function field(value: string | number): string {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** `format=csv` on transactions: the spec leaves the columns open, so this is a flat RFC 4180 rendering of the JSON page. */
export function transactionsCsv(rows: readonly Transaction[]): string {
  const lines = [HEADER];
  for (const t of rows) {
    lines.push(
      [t.id, t.customer.id, t.customer.merchantId, t.customer.email, t.pointsApproved, t.pointsPending, iso(t.createdAt), t.resource, t.activity?.id ?? '', t.activity === null ? '' : t.activityState]
        .map(field)
        .join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}
