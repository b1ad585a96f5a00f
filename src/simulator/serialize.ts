import { PROGRAM_ID, SITE_ID, TIERS } from './catalog.js';
import { formatCents } from './money.js';
import type { Activity, Balances, Customer, Order, Review, Reward, Transaction } from './model.js';
import type { ServedDrift } from './types.js';
import { DAY, iso } from './time.js';

/**
 * Records become JSON text here, and only here: the list endpoints and `truth()` both use these
 * functions, so what a test compares is byte for byte what a client received.
 */

function summary(customer: Customer, at: Balances) {
  return {
    id: customer.id,
    merchant_id: customer.merchantId,
    email: customer.email,
    points_pending: at.pending,
    points_approved: at.approved,
    points_spent: at.spent,
  };
}

/**
 * The same summary as text. Transactions and activities are most of what is served, so their
 * hot path writes JSON by template instead of building objects; key order matches `summary`.
 */
function summaryText(customer: Customer, at: Balances): string {
  customer.summaryHead ??= `{"id":${customer.id},"merchant_id":${JSON.stringify(customer.merchantId)},"email":${JSON.stringify(customer.email)}`;
  return `${customer.summaryHead},"points_pending":${at.pending},"points_approved":${at.approved},"points_spent":${at.spent}}`;
}

/** A program without tiers serves null here: the spec shows the object's members, never how its absence looks. */
function tierMembership(c: Customer) {
  if (c.tierIndex === null) return null;
  const tier = TIERS[c.tierIndex];
  return { started_at: iso(c.tierStartedAt), expires_at: iso(c.tierStartedAt + 365 * DAY), manual: tier.hidden, loyalty_tier: tier };
}

export function customerJson(c: Customer): string {
  const record: Record<string, unknown> = {
    id: c.id,
    merchant_id: c.merchantId,
    email: c.email,
    points_approved: c.pointsApproved,
    points_pending: c.pointsPending,
    points_spent: c.pointsSpent,
    properties: c.properties,
    metadata: { ecom_source_url: `https://shop.example.com/admin/customers/${c.merchantId}` },
    rewards_claimed: c.rewardsClaimed,
    blocked: c.blocked,
    guest: c.guest,
    enrolled: c.enrolled,
    enrolled_at: c.enrolled ? iso(c.enrolledAt ?? c.createdAt) : null,
    referral_id: `ref${c.id.toString(36)}`,
    referred_by: c.referredBy,
    loyalty_tier_membership: tierMembership(c),
    birthday: c.birthday,
    referral_url: `https://loyalty.example/r/ref${c.id.toString(36)}`,
    receipt_upload_url: `https://loyalty.example/receipts/${c.id}`,
    created_at: iso(c.createdAt),
    updated_at: iso(c.updatedAt),
    linked_merchant_ids: c.linkedMerchantIds,
  };
  if (c.insightsSegment !== undefined) record.insights_segment = c.insightsSegment;
  if (c.loyaltyPass !== undefined) {
    record.loyalty_pass_url = c.loyaltyPass.url;
    record.loyalty_pass_installed = c.loyaltyPass.installed;
  }
  if (c.extra !== undefined) Object.assign(record, c.extra);
  return JSON.stringify(record);
}

/** `drift` adds what the spec does not list, when a test asks for it. */
export function orderJson(o: Order, drift: ServedDrift = {}): string {
  const record: Record<string, unknown> = {
    id: o.id,
    merchant_id: o.merchantId,
    merchant_number: o.merchantNumber,
    total: formatCents(o.totalCents),
    total_tax: formatCents(o.taxCents),
    total_shipping: formatCents(o.shippingCents),
    total_discounts: formatCents(o.discountCents),
    total_paid: formatCents(o.paidCents),
    total_refunded: formatCents(o.refundedCents()),
    payment_status: o.paymentStatus,
    fulfillment_status: o.fulfillmentStatus,
    refund_status: o.refundStatus,
    cancellation_status: o.cancelled ? 'cancelled' : 'not_cancelled',
    metadata: {
      ecom_source_url: `https://shop.example.com/admin/orders/${o.merchantId}`,
      ecom_source_name: o.sourceName,
      ecom_location_id: o.locationId,
    },
    created_at: iso(o.createdAt),
    updated_at: iso(o.updatedAt),
    customer: summary(o.customer, o.customerAtCreation),
  };
  if (drift.unlistedEnumValue && o.id % 3 === 0) record.payment_status = 'authorized';
  if (drift.unlistedField) record.customer_note = `Leave at the back door; questions to ${o.customer.email}`;
  return JSON.stringify(record);
}

/** The get-order shape is a different, smaller object than the list item. */
export function singleOrderJson(o: Order): string {
  return JSON.stringify({
    cancellation_status: o.cancelled ? 'cancelled' : 'not_cancelled',
    merchant_id: o.merchantId,
    payment_status: o.paymentStatus,
    refund_status: o.refundStatus,
    total_paid: formatCents(o.paidCents),
    total_shipping: formatCents(o.shippingCents),
    total: formatCents(o.totalCents),
    merchant_created_at: iso(o.createdAt),
    merchant_updated_at: iso(o.updatedAt),
    payments: o.payments.map((p) => ({ amount: formatCents(p.cents), created_at: iso(p.createdAt), gateway: p.gateway })),
    refunds: o.refunds.map((r) => ({ amount: formatCents(r.cents), created_at: iso(r.createdAt) })),
  });
}

function activityText(a: Activity, state: string, resource: string, createdAt: string): string {
  return (
    `{"id":${a.id},"merchant_id":${JSON.stringify(a.merchantId)},"value":${a.value},"state":"${state}",` +
    `"customer":${summaryText(a.customer, a.customerAtCreation)},"created_at":"${createdAt}",` +
    `"resource":${resource},"rule":${JSON.stringify(a.rule)},"flow":${JSON.stringify(a.flow)}}`
  );
}

export function activityJson(a: Activity): string {
  return activityText(a, a.state, JSON.stringify(a.resource), iso(a.createdAt));
}

export function transactionJson(t: Transaction): string {
  const createdAt = iso(t.createdAt);
  const head =
    `{"id":${t.id},"customer":${summaryText(t.customer, t.customerAtCreation)},"points_approved":${t.pointsApproved},` +
    `"points_pending":${t.pointsPending},"created_at":"${createdAt}","resource":"${t.resource}"`;
  if (t.activity === null) return `${head}}`;
  // Inside a transaction the activity is a snapshot of its state then, with resource null.
  const activityCreatedAt = t.activity.createdAt === t.createdAt ? createdAt : iso(t.activity.createdAt);
  return `${head},"activity":${activityText(t.activity, t.activityState, 'null', activityCreatedAt)}}`;
}

export function reviewJson(r: Review): string {
  return JSON.stringify({
    id: r.id,
    program_id: PROGRAM_ID,
    site_id: SITE_ID,
    customer: { id: r.customer.id, email: r.customer.email },
    platform: r.platform,
    merchant_id: r.merchantId,
    status: r.status,
    full_text: r.fullText,
    rating: r.rating,
    images_count: r.imagesCount,
    videos_count: r.videosCount,
    merchant_created_at: iso(r.createdAt),
    merchant_updated_at: iso(r.updatedAt),
    moderation_url: `https://loyalty.example/admin/reviews/${r.id}`,
  });
}

export function rewardObject(r: Reward) {
  return {
    id: r.id,
    title: r.title,
    description: r.description,
    sort_key: r.id * 10,
    content: { headline: r.title, body: r.description },
    point_cost: r.pointCost,
    method: 'points',
    order_type: 'one_time',
    target_type: 'entire_order',
    kind: r.discountAmount > 0 ? 'discount' : 'perk',
    discount_type: 'flat',
    discount_amount: r.discountAmount,
    minimum_spend: r.minimumSpend,
    usage_limit: 1,
    min_redemption_amount: 1,
    max_redemption_amount: 1,
    recurring_cycle_limit: 0,
    site_id: SITE_ID,
    target_site: { id: SITE_ID, name: 'Example Store', url: 'https://shop.example.com' },
    target_collections: [],
    target_products: [],
    expiry_options: { kind: 'never', seconds: null },
    supported_channels: ['web'],
    max_free_shipping: null,
    session_options: null,
    auto_refund_seconds: null,
    redeemable_expiry_options: null,
  };
}
