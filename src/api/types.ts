/**
 * Resources and request bodies of the Admin API v2 (`api-spec.md`, parts 2 and 4).
 *
 * Records read from the API are typed as the spec's fields plus `Passthrough`, because the
 * mirror stores each record exactly as returned: fields and enum values the spec does not
 * list must survive untouched. Fields the spec marks optional, or describes only in one of
 * its two customer descriptions, are optional here.
 */

/** Fields the spec does not list are kept as they came. */
export type Passthrough = Record<string, unknown>;

/** ISO 8601 timestamp string (part 2, conventions). */
export type Timestamp = string;
/** Decimal string without formatting, e.g. "12.50"; never parsed to a float. */
export type Money = string;

export type PaymentStatus = 'not_paid' | 'partially_paid' | 'paid';
export type RefundStatus = 'not_refunded' | 'partially_refunded' | 'refunded';
export type CancellationStatus = 'cancelled' | 'not_cancelled';
export type ReviewStatus = 'approved' | 'flagged' | 'pending' | 'rejected';

/** Part 2, "Cursor": a null value means there are no more results in that direction. */
export interface Cursor {
  prev: string | null;
  next: string | null;
}

/** Part 2, "Customer summary", embedded in orders, activities and transactions. */
export type CustomerSummary = Passthrough & {
  id: number;
  merchant_id: string;
  email: string;
  points_pending: number;
  points_approved: number;
  points_spent: number;
};

export type LoyaltyTier = Passthrough & {
  id: number;
  name: string;
  number: number;
  default: boolean;
  hidden: boolean;
  lower_bound: string;
  upper_bound: string;
  position: number;
};

/** Part 2, "Customer (list item)". */
export type Customer = Passthrough & {
  id: number;
  merchant_id: string;
  email: string;
  points_approved: number;
  points_pending: number;
  points_spent: number;
  properties: Passthrough;
  metadata: Passthrough & { ecom_source_url: string };
  rewards_claimed: number;
  blocked: boolean;
  guest: boolean;
  enrolled: boolean;
  enrolled_at: Timestamp;
  referral_id: string;
  referred_by: Passthrough & { id: number; merchant_id: string };
  loyalty_tier_membership: Passthrough & {
    started_at: Timestamp;
    expires_at: Timestamp;
    manual: boolean;
    loyalty_tier: LoyaltyTier;
  };
  /** Only `At Risk` is given by the spec; other values pass through. */
  insights_segment?: string;
  birthday: string;
  referral_url: string;
  receipt_upload_url: string;
  loyalty_pass_url?: string;
  loyalty_pass_installed?: boolean;
  created_at: Timestamp;
  updated_at: Timestamp;
  linked_merchant_ids: string[];
};

/** Part 2, "Order (list item)". */
export type Order = Passthrough & {
  id: number;
  merchant_id: string;
  merchant_number: string;
  total: Money;
  total_tax: Money;
  total_shipping: Money;
  total_discounts: Money;
  total_paid: Money;
  total_refunded: Money;
  payment_status: PaymentStatus;
  /** `fulfilled` is given; the full set is not shown. */
  fulfillment_status: string;
  refund_status: RefundStatus;
  cancellation_status: CancellationStatus;
  metadata: Passthrough & { ecom_source_url: string; ecom_source_name: string; ecom_location_id: number };
  created_at: Timestamp;
  updated_at: Timestamp;
  customer: CustomerSummary;
};

/** Part 2, "Order (single, as returned by get-order)". */
export type OrderDetail = Passthrough & {
  cancellation_status: CancellationStatus;
  merchant_id: string;
  payment_status: PaymentStatus;
  refund_status: RefundStatus;
  total_paid: Money;
  total_shipping: Money;
  total: Money;
  merchant_created_at: Timestamp;
  merchant_updated_at: Timestamp;
  payments: Array<Passthrough & { amount: Money; created_at: Timestamp; gateway: string }>;
  refunds: Array<Passthrough & { amount: Money; created_at: Timestamp }>;
};

/** Part 2, "Activity". */
export type Activity = Passthrough & {
  id: number;
  merchant_id: string;
  value: number;
  /** `pending` is given; the other values are not shown. */
  state: string;
  customer: CustomerSummary;
  created_at: Timestamp;
  /** Null inside a transaction's embedded activity; its other form is not shown. */
  resource: unknown;
  rule: Passthrough & { id: number; name: string; title: string };
  flow: Passthrough & { id: number; journey_id: number; name: string; block_id: string };
};

/** Part 2, "Transaction": immutable. */
export type Transaction = Passthrough & {
  id: number;
  customer: CustomerSummary;
  points_approved: number;
  points_pending: number;
  created_at: Timestamp;
  /** `activity` is given; the other values are not shown. */
  resource: string;
  /** Present when `resource` is `activity`. */
  activity?: Activity;
};

/** Part 2, "Review" (returned by update-review under `review`). */
export type Review = Passthrough & {
  id: number;
  program_id: number;
  site_id: number;
  customer: Passthrough & { id: number; email: string };
  platform: string;
  merchant_id: string;
  status: ReviewStatus;
  full_text: string;
  rating: number;
  images_count: number;
  videos_count: number;
  merchant_created_at: Timestamp;
  merchant_updated_at: Timestamp;
  moderation_url: string;
};

/** Part 2, "Reward". Fields given only as null in the spec are `unknown`. */
export type Reward = Passthrough & {
  id: number;
  title: string;
  description: string;
  sort_key: number;
  content: Passthrough;
  point_cost: number;
  method: string;
  order_type: string;
  target_type: string;
  kind: string;
  discount_type?: string;
  discount_amount: number;
  minimum_spend: number;
  usage_limit: number;
  min_redemption_amount: number;
  max_redemption_amount: number;
  recurring_cycle_limit: number;
  site_id: number;
  target_site: Passthrough & { id: number; name: string; url: string };
  target_collections: Array<Passthrough & { id: number; url: string; restriction_text: string }>;
  target_products: Array<
    Passthrough & {
      id: number;
      variant_id: number;
      sku: string;
      url: string;
      image_url: string;
      title: string;
      handle: string;
      inventory_count: number;
      sort_key: number;
    }
  >;
  expiry_options: Passthrough & { kind: string; seconds: unknown };
  supported_channels: string[];
  max_free_shipping: unknown;
  session_options: unknown;
  auto_refund_seconds: unknown;
  redeemable_expiry_options: unknown;
};

export interface RewardSession {
  /** `cart` is given; the other values are not shown. */
  kind: string;
  token: string;
}

/** Part 2, "Claimed reward" (returned under `claimed_reward`). */
export type ClaimedReward = Passthrough & {
  id: number;
  claimed_at: Timestamp;
  point_cost: number;
  redeemable: Passthrough & { redeemable_type: string; fulfilled: boolean; fulfilled_at: Timestamp; expires_on: unknown };
  reward: Reward;
  /** `approved` is given; the other values are not shown. */
  state: string;
  session: Passthrough & RewardSession;
  auto_refund_at: Timestamp;
  expires_at: Timestamp;
};

/** Part 2, "Identity", API key variant: the only variant whose fields the spec shows. */
export type ApiKeyIdentity = Passthrough & {
  kind: 'api_key';
  account_id: number;
  program_id: number;
  scopes: string[];
  integration: unknown;
};

/** The OAuth client and site token variants: their fields are not shown by the spec. */
export type OtherIdentity = Passthrough & { kind: string; scopes?: string[] };

export type Identity = ApiKeyIdentity | OtherIdentity;

/** Part 2, "Unsubscribe entry". */
export type UnsubscribeEntry = Passthrough & { email: string; id: string };

/** Part 7: the envelope form, and the plain-string form of get-order and add-points. */
export type ApiErrorBody =
  | { error: { message: string; code?: string; details?: Record<string, string> } }
  | { error: string };

/** POST /v2/customers/{merchant_id}/points. Bounds and sign rules are not shown by the spec. */
export interface AddPointsBody {
  points: number;
  reason: string;
}

/**
 * POST /v2/orders. The spec shows neither which fields are required nor the exact JSON types
 * of several of them, nor the payment-status field's name; `payment_status` matches the
 * order resource.
 */
export interface CreateOrderBody {
  customer_id: string | number;
  customer_email: string;
  merchant_id: string;
  total: Money;
  total_shipping: Money;
  total_paid: Money | number;
  payment_status: PaymentStatus;
  merchant_number?: string | number;
  number?: string | number;
  discount_codes?: string[] | string;
  claimed_reward_ids?: number[];
  date?: Timestamp;
  ip_address?: string;
  user_agent?: string;
  referral_id?: string;
  tracking_id?: string;
  guest?: boolean;
}

/** POST /v2/customers/{merchant_id}/claimed_rewards. */
export interface ClaimRewardBody {
  reward_id: number;
  /** Only for the custom reward type. */
  multiplier?: number;
  /** Required when the reward is a seamless product reward. */
  variant_id?: string;
  ecom_action_id?: string;
  attribution?: 'redemption_notification';
  session?: RewardSession;
}

/** PUT /v2/reviews/{platform}/{merchant_id}. Which fields are required is not shown. */
export interface UpdateReviewBody {
  status?: ReviewStatus;
  /** Min length 1. */
  full_text?: string;
  /** >= 1. */
  rating?: number;
  /** 0 to 1000. */
  images_count?: number;
  /** 0 to 1000. */
  videos_count?: number;
  date?: Timestamp;
}
