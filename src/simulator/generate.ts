import { CUSTOM_PLATFORM, FLOWS, MANUAL_RULES, REVIEW_TEXTS, REWARD_TEMPLATES, RULES } from './catalog.js';
import { Review } from './model.js';
import type { Activity, ActivityState, Customer, ReviewStatus, Unsubscribe } from './model.js';
import { pendingPeriod } from './liveRates.js';
import { makeOrder, planRefund } from './orders.js';
import { makeCustomer, pickCustomerAt } from './people.js';
import { Store } from './store.js';
import { DAY, HISTORY_SPAN, HOUR, MINUTE } from './time.js';
import type { ProgramFeatures } from './profiles.js';
import type { DataSizes } from './types.js';

const VOID_RATE = 0.03;
const EXPIRED_RATE = 0.01;
const REVIEW_POINTS = 50;
/** Customers joined over a longer past than the orders and activities cover, so some are months older than any order. */
const CUSTOMER_SPAN = 2 * HISTORY_SPAN;

/** Builds the whole program from the seed, oldest record first, so each embedded balance is the one at that instant. */
export function generate(seed: number, sizes: DataSizes, epoch: number, features: ProgramFeatures): Store {
  const store = new Store(seed, epoch, features);
  const start = epoch - HISTORY_SPAN;
  generateRewards(store, sizes.rewards);
  for (let i = 0; i < sizes.customers; i++) {
    makeCustomer(store, epoch - CUSTOMER_SPAN + Math.floor(((i + store.rng.next() * 0.5) / sizes.customers) * (CUSTOMER_SPAN - DAY)), 0);
  }
  for (let i = 0; i < sizes.orders; i++) {
    const at = start + Math.floor(((i + store.rng.next()) / sizes.orders) * HISTORY_SPAN);
    planRefund(store, makeOrder(store, pickCustomerAt(store, at), at, 0));
  }
  if (features.activities) generateActivities(store, sizes, generateReviews(store, sizes.reviews, start), start);
  else generatePointMovements(store, sizes.transactions, start);
  generateUnsubscribes(store, sizes.unsubscribes);
  return store;
}

function generateRewards(store: Store, count: number): void {
  for (let i = 0; i < count; i++) {
    const template = REWARD_TEMPLATES[i % REWARD_TEMPLATES.length];
    const round = Math.floor(i / REWARD_TEMPLATES.length);
    store.rewards.push({
      id: i + 1,
      title: round === 0 ? template.title : `${template.title} (${round + 1})`,
      description: template.description,
      pointCost: 100 * (1 + (i % 10)),
      discountAmount: template.discount,
      minimumSpend: template.minimumSpend,
    });
  }
}

function generateReviews(store: Store, count: number, start: number): Review[] {
  const rng = store.rng;
  const approved: Review[] = [];
  for (let i = 0; i < count; i++) {
    const createdAt = start + rng.int(0, HISTORY_SPAN - DAY);
    const roll = rng.next();
    const status: ReviewStatus = roll < 0.6 ? 'approved' : roll < 0.85 ? 'pending' : roll < 0.93 ? 'flagged' : 'rejected';
    const review = new Review(
      store.newId('review'),
      CUSTOM_PLATFORM,
      `rev-${1000 + i}`,
      pickCustomerAt(store, createdAt),
      status,
      rng.pick(REVIEW_TEXTS),
      rng.int(1, 5),
      rng.chance(0.3) ? rng.int(1, 6) : 0,
      rng.chance(0.05) ? 1 : 0,
      createdAt,
      createdAt,
    );
    store.addReview(review);
    if (status === 'approved') approved.push(review);
  }
  return approved;
}

/**
 * Activities in time order with their transactions. Approved reviews get their rule activity
 * somewhere in the stream; transactions beyond the ones activities imply are redemptions
 * (or imports, for customers who cannot afford one), spread evenly.
 */
function generateActivities(store: Store, sizes: DataSizes, approvedReviews: Review[], start: number): void {
  const rng = store.rng;
  const total = Math.max(sizes.activities, approvedReviews.length);
  const extraPerActivity = total === 0 ? 0 : Math.max(0, sizes.transactions - total * (1 + VOID_RATE)) / total;
  let extraDue = 0;
  let reviewIndex = 0;
  const slot = HISTORY_SPAN / Math.max(1, total);
  for (let i = 0; i < total; i++) {
    const at = start + Math.floor((i + rng.next()) * slot);
    const reviewsLeft = approvedReviews.length - reviewIndex;
    if (reviewsLeft > 0 && rng.next() * (total - i) < reviewsLeft) {
      const review = approvedReviews[reviewIndex++];
      review.updatedAt = Math.max(review.createdAt, at - MINUTE);
      store.reviewActivity(review, REVIEW_POINTS, at, 0);
    } else {
      const activity = generatedActivity(store, pickCustomerAt(store, at), at);
      if (activity.state === 'approved' && activity.rule !== RULES.expiration && rng.chance(VOID_RATE)) {
        store.voidActivity(activity, Math.min(at + rng.int(1, 48) * HOUR, store.epoch - MINUTE), 0);
      }
    }
    extraDue += extraPerActivity;
    for (; extraDue >= 1; extraDue--) extraTransaction(store, pickCustomerAt(store, at), at + 1);
  }
  const customers = store.customers;
  for (let i = 0; store.transactions.length < sizes.transactions; i++) {
    extraTransaction(store, customers[i % customers.length], store.epoch - HOUR + i);
  }
}

function generatedActivity(store: Store, customer: Customer, at: number): Activity {
  const rng = store.rng;
  const roll = rng.next();
  const state: ActivityState = rng.chance(EXPIRED_RATE) ? 'expired' : 'approved';
  if (roll < 0.05 && customer.pointsApproved >= 20 && state === 'approved') {
    return store.recordActivity({ customer, value: -rng.int(10, Math.min(200, customer.pointsApproved)), state, rule: RULES.expiration, flow: null, resource: null, at, visibleAt: 0 });
  }
  if (roll < 0.2) {
    const rule = rng.pick(MANUAL_RULES);
    return store.recordActivity({ customer, value: rng.int(1, 500), state: 'approved', rule, flow: null, resource: null, at, visibleAt: 0 });
  }
  if (roll < 0.3) {
    return store.recordActivity({ customer, value: 100, state, rule: RULES.enrollment, flow: FLOWS[0], resource: { type: 'customer', id: customer.id }, at, visibleAt: 0 });
  }
  if (roll < 0.35) {
    return store.recordActivity({ customer, value: 250, state, rule: RULES.birthday, flow: null, resource: { type: 'customer', id: customer.id }, at, visibleAt: 0 });
  }
  // Order points are held for the merchant's return window: still pending when it ends after the epoch.
  const order = store.orders.length > 0 ? rng.pick(store.orders) : null;
  const resource = order ? { type: 'order' as const, id: order.id } : null;
  const pendingUntil = at + pendingPeriod(rng);
  const held: ActivityState = state === 'approved' && pendingUntil > store.epoch ? 'pending' : state;
  return store.recordActivity({ customer, value: rng.int(10, 500), state: held, rule: RULES.order, flow: FLOWS[1], resource, at, visibleAt: 0, merchantId: order?.merchantId, pendingUntil });
}

/** A program without activities (or reviews, whose approval earns one): points come by imports and go by redemptions. */
function generatePointMovements(store: Store, count: number, start: number): void {
  for (let i = 0; i < count && store.customers.length > 0; i++) {
    const at = start + Math.floor(((i + store.rng.next()) / count) * HISTORY_SPAN);
    extraTransaction(store, pickCustomerAt(store, at), at);
  }
}

/** Points that move without an activity: a redemption when the customer can afford a reward, else an import. */
export function extraTransaction(store: Store, customer: Customer, at: number): void {
  const cost = store.rng.pick(store.rewards).pointCost;
  if (customer.pointsApproved >= cost) store.spendPoints(customer, cost, at, 0);
  else store.importPoints(customer, 25, at, 0);
}

function generateUnsubscribes(store: Store, count: number): void {
  const rng = store.rng;
  const seen = new Set<string>();
  const entries: Unsubscribe[] = [];
  while (entries.length < count) {
    const id = rng.hex(24);
    if (seen.has(id)) continue;
    seen.add(id);
    const email = rng.chance(0.7) ? rng.pick(store.customers).email : `former.subscriber${entries.length}@example.org`;
    entries.push({ id, email });
  }
  store.unsubscribes = entries.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
