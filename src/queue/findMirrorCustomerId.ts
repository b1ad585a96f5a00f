import type { Db } from '../db/open.js';

/** The service id of a customer by merchant id, from the mirror's `customers` table (filled by sync). */
export function findMirrorCustomerId(db: Db, merchantId: string): number | undefined {
  const row = db.prepare('SELECT id FROM customers WHERE merchant_id = ? ORDER BY id LIMIT 1').get(merchantId) as { id: number } | undefined;
  return row?.id;
}
