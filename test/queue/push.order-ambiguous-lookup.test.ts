import { afterEach, beforeEach, expect, test } from 'vitest';
import { getJob } from '../../src/queue/getJob.js';
import { pushUntilSettled, queue, startHarness, type Harness } from './helpers.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness({ sim: { size: 'tiny' } });
});
afterEach(() => h.close());

test('an order whose answer is lost after it was created is found by merchant_id and never created twice', async () => {
  const order = queue(h, 'create_order', {
    merchant_id: 'ord-lost-answer',
    customer_id: 'cust-new-1',
    customer_email: 'new1@example.com',
    total: '120.00',
    total_shipping: '5.00',
    total_paid: '120.00',
    payment_status: 'paid',
  });
  // Every write lands and then loses its connection; reads are unaffected.
  h.sim.setFaults({ applyThenDrop: 1 });

  const report = await pushUntilSettled(h);

  expect(report).toMatchObject({ succeeded: 1, reconciled: 1, dead: 0, unknown: 0 });
  const job = getJob(h.db, order.id);
  expect(job).toMatchObject({ state: 'succeeded', attempts: 2 });
  expect(job?.response).toContain('found_by_lookup');
  const creates = h.sim.ledger().filter((e) => e.kind === 'create_order' && e.target === 'ord-lost-answer');
  expect(creates).toHaveLength(1);
});
