import { RULES, TIERS } from './catalog.js';
import { DueQueue } from './dueQueue.js';
import { pendingPeriod } from './liveRates.js';
import type { RefundPlan } from './liveRates.js';
import { Activity, Customer, Review, Transaction } from './model.js';
import type { ActivityResource, ActivityState, Balances, Flow, Order, Reward, Rule, TransactionResource, Unsubscribe } from './model.js';
import type { ProgramFeatures } from './profiles.js';
import { Rng } from './random.js';

/** First id of each stream: distinct ranges make an id mixed up between streams easy to spot. */
const FIRST_ID = { customer: 1001, order: 500_001, activity: 2_000_001, transaction: 7_000_001, review: 301, claimedReward: 80_001 };

/**
 * The whole simulated program. Lists are arrays in ascending id order: ids are handed out in
 * creation order, so appending keeps them sorted, and visibility (`visibleAt`) is separate from order.
 */
export class Store {
  tick = 0;
  /** The latest simulated moment: the end of the last tick or the latest write, whichever is later. */
  now: number;
  readonly rng: Rng;
  readonly customers: Customer[] = [];
  readonly customersByMerchantId = new Map<string, Customer>();
  readonly orders: Order[] = [];
  readonly ordersByMerchantId = new Map<string, Order>();
  readonly activities: Activity[] = [];
  readonly transactions: Transaction[] = [];
  /** Keyed by `${platform}/${merchant_id}`. */
  readonly reviews = new Map<string, Review>();
  readonly rewards: Reward[] = [];
  /** Sorted by id (a string). */
  unsubscribes: Unsubscribe[] = [];
  /** Bumped whenever a customer's updated_at moves, so views sorted by updated_at know to rebuild. */
  customersVersion = 0;
  /** Pending activities by the end of their pending period, when a tick approves or voids them. */
  readonly pendingUntil = new DueQueue<Activity>();
  /** Refunds planned at each order's creation, by the time they happen. */
  readonly refundsDue = new DueQueue<{ order: Order; plan: RefundPlan }>();
  private readonly next = { ...FIRST_ID };

  constructor(
    seed: number,
    /** The simulated "now" at tick 0; generated history ends here. */
    readonly epoch: number,
    /** What the program uses (the profile): generation and ticks leave out what is off. */
    readonly features: ProgramFeatures,
  ) {
    this.rng = new Rng(seed);
    this.now = epoch;
  }

  newId(kind: keyof typeof FIRST_ID): number {
    return this.next[kind]++;
  }

  /** Moves the simulated clock by `ms` and returns it: the changes a test makes on purpose, one after another. */
  advanceClock(ms: number): number {
    this.now += ms;
    return this.now;
  }

  /**
   * The moment of a write applied when the wall clock reads `wall`: that time, unless a tick ran the
   * simulated time ahead of it, and always after the latest moment handed out, so writes keep distinct,
   * increasing timestamps and a later tick starts after them.
   */
  stampWrite(wall: number): number {
    this.now = Math.max(wall, this.now + 1);
    return this.now;
  }

  /** The simulated time when the wall clock reads `wall`: never before the latest moment handed out. */
  timeAt(wall: number): number {
    return Math.max(wall, this.now);
  }

  addCustomer(customer: Customer): void {
    this.customers.push(customer);
    this.customersByMerchantId.set(customer.merchantId, customer);
    this.customersVersion++;
  }

  touchCustomer(customer: Customer, at: number): void {
    customer.updatedAt = Math.max(customer.updatedAt, at);
    // Tiers follow lifetime points; the hidden staff tier is assigned by hand and never recomputed.
    if (customer.tierIndex !== null && !TIERS[customer.tierIndex].hidden) {
      const lifetime = customer.pointsApproved + customer.pointsSpent;
      const tierIndex = lifetime >= 2000 ? 2 : lifetime >= 500 ? 1 : 0;
      if (tierIndex !== customer.tierIndex) {
        customer.tierIndex = tierIndex;
        customer.tierStartedAt = at;
      }
    }
    this.customersVersion++;
  }

  addOrder(order: Order): void {
    this.orders.push(order);
    this.ordersByMerchantId.set(order.merchantId, order);
  }

  addReview(review: Review): void {
    this.reviews.set(`${review.platform}/${review.merchantId}`, review);
  }

  /** Records an activity, moves the customer's balance and writes its transaction. */
  recordActivity(input: {
    customer: Customer;
    value: number;
    state: ActivityState;
    rule: Rule;
    flow: Flow | null;
    resource: ActivityResource | null;
    at: number;
    visibleAt: number;
    merchantId?: string;
    /** When a pending activity's period ends; drawn when not given. */
    pendingUntil?: number;
  }): Activity {
    const { customer, value, state, at, visibleAt } = input;
    const pendingSide = state === 'pending' || state === 'expired';
    if (pendingSide) customer.pointsPending += value;
    else customer.pointsApproved += value;
    this.touchCustomer(customer, at);
    const id = this.newId('activity');
    const activity = new Activity(id, input.merchantId ?? `act_${id}`, customer, customer.balances(), value, state, at, input.rule, input.flow, input.resource, visibleAt);
    this.activities.push(activity);
    if (state === 'pending') this.pendingUntil.push(input.pendingUntil ?? at + pendingPeriod(this.rng), activity);
    this.addTransaction('activity', customer, activity.customerAtCreation, pendingSide ? 0 : value, pendingSide ? value : 0, at, activity, state, visibleAt);
    return activity;
  }

  /** Approving moves the points from pending to approved and writes the transaction that says so. */
  approveActivity(activity: Activity, at: number, visibleAt: number): void {
    if (activity.state !== 'pending') return;
    const customer = activity.customer;
    activity.state = 'approved';
    customer.pointsPending -= activity.value;
    customer.pointsApproved += activity.value;
    this.touchCustomer(customer, at);
    this.addTransaction('activity', customer, customer.balances(), activity.value, -activity.value, at, activity, 'approved', visibleAt);
  }

  /** Voiding leaves the activity's first transaction in place and adds the one that takes the points back. */
  voidActivity(activity: Activity, at: number, visibleAt: number): boolean {
    if (activity.state === 'void') return false;
    const wasPending = activity.state === 'pending' || activity.state === 'expired';
    const customer = activity.customer;
    if (wasPending) customer.pointsPending -= activity.value;
    else customer.pointsApproved -= activity.value;
    activity.state = 'void';
    this.touchCustomer(customer, at);
    this.addTransaction('activity', customer, customer.balances(), wasPending ? 0 : -activity.value, wasPending ? -activity.value : 0, at, activity, 'void', visibleAt);
    return true;
  }

  /** A reward redemption: points leave the approved balance without an activity behind them. */
  spendPoints(customer: Customer, points: number, at: number, visibleAt: number): Transaction {
    customer.pointsApproved -= points;
    customer.pointsSpent += points;
    customer.rewardsClaimed += 1;
    this.touchCustomer(customer, at);
    return this.addTransaction('claimed_reward', customer, customer.balances(), -points, 0, at, null, 'approved', visibleAt);
  }

  /** Points credited outside any activity (a migration), a transaction resource the spec does not name. */
  importPoints(customer: Customer, points: number, at: number, visibleAt: number): Transaction {
    customer.pointsApproved += points;
    this.touchCustomer(customer, at);
    return this.addTransaction('points_import', customer, customer.balances(), points, 0, at, null, 'approved', visibleAt);
  }

  reviewActivity(review: Review, value: number, at: number, visibleAt: number): Activity {
    const activity = this.recordActivity({
      customer: review.customer,
      value,
      state: 'approved',
      rule: RULES.review,
      flow: null,
      resource: { type: 'review', id: review.id },
      at,
      visibleAt,
      merchantId: review.merchantId,
    });
    review.activities.push(activity);
    return activity;
  }

  private addTransaction(
    resource: TransactionResource,
    customer: Customer,
    snapshot: Balances,
    pointsApproved: number,
    pointsPending: number,
    at: number,
    activity: Activity | null,
    activityState: ActivityState,
    visibleAt: number,
  ): Transaction {
    const transaction = new Transaction(this.newId('transaction'), resource, customer, snapshot, pointsApproved, pointsPending, at, activity, activityState, visibleAt);
    this.transactions.push(transaction);
    return transaction;
  }
}
