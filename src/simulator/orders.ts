import { FULFILLMENT_STATUSES, GATEWAYS, SOURCE_NAMES } from './catalog.js';
import { refundPlan } from './liveRates.js';
import { Order } from './model.js';
import type { Customer, Payment, PaymentStatus } from './model.js';
import type { Store } from './store.js';
import { HOUR } from './time.js';

/** A generated order: plausible totals (a few very large), payments matching the payment status. */
export function makeOrder(store: Store, customer: Customer, at: number, visibleAt: number): Order {
  const rng = store.rng;
  const id = store.newId('order');
  const subtotal = rng.chance(0.02) ? rng.int(100_000_000, 1_234_567_890) : rng.int(500, 40_000);
  const tax = Math.round(subtotal * 0.08);
  const shipping = rng.pick([0, 499, 999]);
  const discount = rng.chance(0.2) ? Math.round(subtotal * 0.1) : 0;
  const total = subtotal + tax + shipping - discount;
  const roll = rng.next();
  const paymentStatus: PaymentStatus = roll < 0.85 ? 'paid' : roll < 0.92 ? 'partially_paid' : 'not_paid';
  const paid = paymentStatus === 'paid' ? total : paymentStatus === 'partially_paid' ? Math.floor(total / 2) : 0;
  const payments: Payment[] = paid > 0 ? [{ cents: paid, createdAt: at, gateway: rng.pick(GATEWAYS) }] : [];
  const order = new Order(
    id,
    `${id * 7 + 4_400_000_000}`,
    `#${id - 499_000}`,
    customer,
    customer.balances(),
    total,
    tax,
    shipping,
    discount,
    paid,
    paymentStatus,
    store.features.fulfilment ? rng.pick(FULFILLMENT_STATUSES) : null,
    payments,
    rng.pick(SOURCE_NAMES),
    rng.int(60_000_000, 60_000_050),
    at,
    visibleAt,
  );
  store.addOrder(order);
  return order;
}

/** Refunds part or all of what was paid; a full refund of a cancelled order is how cancellations usually look. */
export function refundOrder(order: Order, at: number, full: boolean, cancel: boolean): void {
  const refundable = order.paidCents - order.refundedCents();
  if (refundable > 0) {
    const cents = full ? refundable : Math.max(1, Math.floor(refundable / 3));
    order.refunds.push({ cents, createdAt: at });
    order.refundStatus = order.refundedCents() >= order.paidCents ? 'refunded' : 'partially_refunded';
  }
  if (cancel) order.cancelled = true;
  order.updatedAt = Math.max(at, order.createdAt + HOUR / 60);
}

/**
 * Draws the refund an order gets in its life (most get none): one already due, in generated
 * history, happens now; a later one waits in the store's queue for the tick it falls in.
 */
export function planRefund(store: Store, order: Order): void {
  const plan = refundPlan(store.rng);
  if (plan === null) return;
  const due = order.createdAt + plan.delay;
  if (due <= store.now) refundOrder(order, due, plan.full, plan.cancel);
  else store.refundsDue.push(due, { order, plan });
}
