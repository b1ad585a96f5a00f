/** Internal records. Rows are small classes (one hidden class each) so a million of them stay cheap to build and scan. */

/** A customer's balances at one instant, embedded in the records created at that instant. */
export interface Balances {
  pending: number;
  approved: number;
  spent: number;
}

export interface Tier {
  id: number;
  name: string;
  number: number;
  default: boolean;
  hidden: boolean;
  lower_bound: string;
  upper_bound: string;
  position: number;
}

export interface Rule {
  id: number;
  name: string;
  title: string;
}

export interface Flow {
  id: number;
  journey_id: number;
  name: string;
  block_id: string;
}

/** What the activity points at; the spec leaves its shape open, it is null inside a transaction. */
export interface ActivityResource {
  type: 'order' | 'review' | 'customer';
  id: number;
}

/** Every row of a list stream: `visibleAt` is the tick from which reads can see it (late-visible ids). */
export interface Row {
  id: number;
  visibleAt: number;
}

export class Customer implements Row {
  pointsPending = 0;
  pointsApproved = 0;
  pointsSpent = 0;
  rewardsClaimed = 0;
  /** Index into TIERS; null in a program without tiers. */
  tierIndex: number | null = 0;
  tierStartedAt: number;
  blocked = false;
  enrolled = true;
  /** When an edit enrolled a registered customer; null: enrolled on creation (or never), so enrolled_at is created_at. */
  enrolledAt: number | null = null;
  updatedAt: number;
  properties: Record<string, unknown> = {};
  referredBy: { id: number; merchant_id: string } | null = null;
  insightsSegment: string | undefined = undefined;
  loyaltyPass: { url: string; installed: boolean } | undefined = undefined;
  birthday = '';
  linkedMerchantIds: string[] = [];
  /** A field the spec does not list; present on some customers only, as a real service may add fields. */
  extra: Record<string, unknown> | undefined = undefined;
  /** The unchanging start of the embedded summary's JSON (id, merchant_id, email), built on first use. */
  summaryHead: string | null = null;

  constructor(
    public id: number,
    public merchantId: string,
    public email: string,
    public guest: boolean,
    public createdAt: number,
    public visibleAt: number,
  ) {
    this.updatedAt = createdAt;
    this.tierStartedAt = createdAt;
  }

  balances(): Balances {
    return { pending: this.pointsPending, approved: this.pointsApproved, spent: this.pointsSpent };
  }
}

export interface Payment {
  cents: number;
  createdAt: number;
  gateway: string;
}

export interface Refund {
  cents: number;
  createdAt: number;
}

export type PaymentStatus = 'not_paid' | 'partially_paid' | 'paid';
export const PAYMENT_STATUSES: readonly PaymentStatus[] = ['not_paid', 'partially_paid', 'paid'];

export class Order implements Row {
  refunds: Refund[] = [];
  refundStatus: 'not_refunded' | 'partially_refunded' | 'refunded' = 'not_refunded';
  cancelled = false;
  updatedAt: number;

  constructor(
    public id: number,
    public merchantId: string,
    public merchantNumber: string,
    public customer: Customer,
    public customerAtCreation: Balances,
    public totalCents: number,
    public taxCents: number,
    public shippingCents: number,
    public discountCents: number,
    public paidCents: number,
    public paymentStatus: PaymentStatus,
    public fulfillmentStatus: string | null,
    public payments: Payment[],
    public sourceName: string,
    public locationId: number,
    public createdAt: number,
    public visibleAt: number,
  ) {
    this.updatedAt = createdAt;
  }

  refundedCents(): number {
    return this.refunds.reduce((sum, refund) => sum + refund.cents, 0);
  }
}

/** `expired` is not among the spec's states; it is there so clients meet a state they were not told about. */
export type ActivityState = 'pending' | 'approved' | 'void' | 'expired';

export class Activity implements Row {
  constructor(
    public id: number,
    public merchantId: string,
    public customer: Customer,
    public customerAtCreation: Balances,
    public value: number,
    public state: ActivityState,
    public createdAt: number,
    public rule: Rule,
    public flow: Flow | null,
    public resource: ActivityResource | null,
    public visibleAt: number,
  ) {}
}

/** `activity` is the spec's only given resource kind; the others exercise "other values are not shown". */
export type TransactionResource = 'activity' | 'claimed_reward' | 'points_import';

export class Transaction implements Row {
  constructor(
    public id: number,
    public resource: TransactionResource,
    public customer: Customer,
    public customerAtCreation: Balances,
    public pointsApproved: number,
    public pointsPending: number,
    public createdAt: number,
    public activity: Activity | null,
    /** The embedded activity is a snapshot: transactions never change, even when the activity does. */
    public activityState: ActivityState,
    public visibleAt: number,
  ) {}
}

export type ReviewStatus = 'approved' | 'flagged' | 'pending' | 'rejected';
export const REVIEW_STATUSES: readonly ReviewStatus[] = ['approved', 'flagged', 'pending', 'rejected'];

export class Review {
  deleted = false;
  activities: Activity[] = [];

  constructor(
    public id: number,
    public platform: string,
    public merchantId: string,
    public customer: Customer,
    public status: ReviewStatus,
    public fullText: string,
    public rating: number,
    public imagesCount: number,
    public videosCount: number,
    public createdAt: number,
    public updatedAt: number,
  ) {}
}

export interface Reward {
  id: number;
  title: string;
  description: string;
  pointCost: number;
  discountAmount: number;
  minimumSpend: number;
}

export interface Unsubscribe {
  id: string;
  email: string;
}
