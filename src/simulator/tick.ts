import { FLOWS, MANUAL_RULES, RULES } from './catalog.js';
import type { Row } from './model.js';
import { extraTransaction } from './generate.js';
import { customerEditsThisHour, VOIDED_AT_PERIOD_END } from './liveRates.js';
import { makeOrder, planRefund, refundOrder } from './orders.js';
import { editCustomer, makeCustomer, pickCustomerAt } from './people.js';
import type { Store } from './store.js';
import { HOUR } from './time.js';
import type { DataSizes } from './types.js';

/** Share of each stream's initial size that one tick adds (unsubscribes: adds and removes). */
const GROWTH_PER_TICK = 0.005;
const LATE_SHARE = 0.2;

function perTick(size: number, minimum: number): number {
  return Math.max(minimum, Math.round(size * GROWTH_PER_TICK));
}

/**
 * Rows created in this tick become visible now, except a few that stay hidden until the next
 * tick: always the lowest id of the batch (when it has two or more), never the highest. That
 * is the out-of-order commit a reader that trusts "ids only grow" gets wrong.
 */
function delaySome(store: Store, rows: readonly Row[], from: number): void {
  const count = rows.length - from;
  for (let i = from; i < rows.length; i++) {
    const first = i === from && count >= 2;
    const last = i === rows.length - 1;
    rows[i].visibleAt = first || (!last && store.rng.chance(LATE_SHARE)) ? store.tick + 1 : store.tick;
  }
}

function insertUnsubscribe(store: Store, id: string, email: string): void {
  const list = store.unsubscribes;
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (list[mid].id < id) low = mid + 1;
    else high = mid;
  }
  if (list[low]?.id !== id) list.splice(low, 0, { id, email });
}

/** One simulated hour of a live program. */
export function tick(store: Store, sizes: DataSizes): void {
  const rng = store.rng;
  store.tick += 1;
  const start = store.now;
  store.now += HOUR;
  let moment = start;
  // Changes to older records were planned when each record was created; take those the hour made due.
  const periodsEnded = store.pendingUntil.takeDue(store.now);
  const refunds = store.refundsDue.takeDue(store.now);
  const edits = customerEditsThisHour(rng, store.customers.length);
  // Events of the hour get increasing times spread over it, so rows created in it keep creation order.
  const planned = perTick(sizes.customers, 2) + perTick(sizes.orders, 2) * 2 + perTick(sizes.activities, 3) + periodsEnded.length + refunds.length + edits;
  const maxStep = Math.max(1, Math.floor(HOUR / (2 * planned)));
  const nextMoment = () => (moment = Math.min(moment + rng.int(1, maxStep), store.now));

  const before = { customers: store.customers.length, orders: store.orders.length, activities: store.activities.length, transactions: store.transactions.length };

  const has = store.features;
  if (has.newCustomers) for (let i = perTick(sizes.customers, 2); i > 0; i--) makeCustomer(store, nextMoment(), store.tick);

  for (const { item: activity } of periodsEnded) {
    if (activity.state !== 'pending') continue;
    if (rng.chance(VOIDED_AT_PERIOD_END)) store.voidActivity(activity, nextMoment(), store.tick);
    else store.approveActivity(activity, nextMoment(), store.tick);
  }

  for (let i = perTick(sizes.orders, 2); i > 0; i--) {
    const at = nextMoment();
    const customer = pickCustomerAt(store, at);
    const order = makeOrder(store, customer, at, store.tick);
    planRefund(store, order);
    if (!has.activities) continue;
    const points = Math.max(1, Math.floor(order.totalCents / 10_000));
    store.recordActivity({ customer, value: points, state: 'pending', rule: RULES.order, flow: FLOWS[1], resource: { type: 'order', id: order.id }, at, visibleAt: store.tick, merchantId: order.merchantId });
  }
  for (let i = perTick(sizes.activities, 3); i > 0; i--) {
    const at = nextMoment();
    // Without activities, points still move: by imports and redemptions.
    if (!has.activities) {
      extraTransaction(store, pickCustomerAt(store, at), at);
      continue;
    }
    const rule = rng.pick(MANUAL_RULES);
    store.recordActivity({ customer: pickCustomerAt(store, at), value: rng.int(5, 300), state: 'approved', rule, flow: null, resource: null, at, visibleAt: store.tick });
  }
  // Customers of any age change now and then without points moving.
  for (let i = edits; i > 0; i--) editCustomer(store, rng.pick(store.customers), nextMoment());

  for (const { item } of refunds) {
    const { order, plan } = item;
    if (order.cancelled || order.refundStatus === 'refunded') continue;
    refundOrder(order, nextMoment(), plan.full, plan.cancel);
  }

  for (let i = perTick(sizes.unsubscribes, 1); i > 0; i--) insertUnsubscribe(store, rng.hex(24), rng.pick(store.customers).email);
  for (let i = perTick(sizes.unsubscribes, 1); i > 0 && store.unsubscribes.length > 0; i--) {
    store.unsubscribes.splice(rng.int(0, store.unsubscribes.length - 1), 1);
  }

  delaySome(store, store.customers, before.customers);
  delaySome(store, store.orders, before.orders);
  delaySome(store, store.activities, before.activities);
  delaySome(store, store.transactions, before.transactions);
}
