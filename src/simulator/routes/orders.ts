import { RULES } from '../catalog.js';
import { BodyReader } from '../body.js';
import type { RouteRequest, SimContext } from '../context.js';
import { envelopeError, HttpError, parseJsonObject } from '../http.js';
import type { Reply } from '../http.js';
import { Order, PAYMENT_STATUSES } from '../model.js';
import type { Customer } from '../model.js';
import { makeCustomer } from '../people.js';
import { singleOrderJson } from '../serialize.js';

const EMAIL = /^[^@\s]+@[^@\s]+$/;

/** GET /v2/orders/{merchant_id}: the spec gives this endpoint a plain-string error body, used for its 404. */
export function getOrder(ctx: SimContext, request: RouteRequest): Reply {
  const order = ctx.store.ordersByMerchantId.get(request.params[0]);
  if (order === undefined || order.visibleAt > ctx.store.tick) throw new HttpError(404, { error: 'Order not found' });
  return { status: 200, body: singleOrderJson(order) };
}

/**
 * POST /v2/orders. The caller's customer_id is the customer's merchant_id here; an unknown one
 * creates the customer. Answers 201 with a zero-length body (the spec's "empty string").
 */
export function createOrder(ctx: SimContext, request: RouteRequest): Reply {
  const raw = parseJsonObject(request.body, true);
  const body = new BodyReader(raw);
  const merchantId = body.string('merchant_id', true) as string;
  const customerId = body.identifier('customer_id', true) as string;
  const email = body.string('customer_email', true) as string;
  if (!EMAIL.test(email)) throw body.invalid('customer_email', 'customer_email must be an email address.');
  const total = body.money('total');
  const shipping = body.money('total_shipping');
  const paid = body.money('total_paid');
  const paymentStatus = body.oneOf('payment_status', PAYMENT_STATUSES, true) ?? 'not_paid';
  const number = body.identifier('merchant_number', false) ?? body.identifier('number', false);
  body.array('discount_codes', (v) => typeof v === 'string' || (typeof v === 'object' && v !== null), 'strings or objects');
  body.array('claimed_reward_ids', Number.isSafeInteger, 'integers');
  const date = body.timestamp('date');
  for (const name of ['ip_address', 'user_agent', 'referral_id', 'tracking_id']) body.string(name, false, 1000);
  const guest = body.boolean('guest') ?? false;

  const store = ctx.store;
  if (store.ordersByMerchantId.has(merchantId)) {
    throw envelopeError(422, `An order with merchant_id "${merchantId}" already exists.`, 'duplicate_order', { merchant_id: 'already exists' });
  }
  const at = store.stampWrite(ctx.clock());
  const createdAt = date ?? at;
  const customer: Customer = store.customersByMerchantId.get(customerId) ?? makeCustomer(store, at, store.tick, { merchantId: customerId, email, guest });
  const id = store.newId('order');
  const order = new Order(
    id,
    merchantId,
    number ?? `#${id - 499_000}`,
    customer,
    customer.balances(),
    total,
    0,
    shipping,
    0,
    paid,
    paymentStatus,
    null,
    paid > 0 ? [{ cents: paid, createdAt, gateway: 'api' }] : [],
    'api',
    0,
    createdAt,
    store.tick,
  );
  store.addOrder(order);
  const points = Math.floor(total / 100);
  if (points > 0) {
    store.recordActivity({ customer, value: points, state: 'pending', rule: RULES.order, flow: null, resource: { type: 'order', id }, at, visibleAt: store.tick, merchantId });
  }
  ctx.ledger.record('create_order', merchantId, raw, points > 0 ? `created order ${id}, ${points} points pending` : `created order ${id}`, at);
  return { status: 201, body: '', contentType: '', applied: true };
}
