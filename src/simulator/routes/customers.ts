import { RULES } from '../catalog.js';
import { BodyReader } from '../body.js';
import type { RouteRequest, SimContext } from '../context.js';
import { envelopeError, HttpError, parseJsonObject } from '../http.js';
import type { Reply } from '../http.js';
import type { Customer } from '../model.js';
import { rewardObject } from '../serialize.js';
import { DAY, iso } from '../time.js';

const MAX_POINTS = 1_000_000;

function visibleCustomer(ctx: SimContext, merchantId: string): Customer | undefined {
  const customer = ctx.store.customersByMerchantId.get(merchantId);
  return customer === undefined || customer.visibleAt > ctx.store.tick ? undefined : customer;
}

/**
 * POST /v2/customers/{merchant_id}/points. The spec defines two plain-string error bodies here:
 * they answer an unknown customer (404) and a blocked one (422). Answers 201 with the JSON string "".
 */
export function addPoints(ctx: SimContext, request: RouteRequest): Reply {
  const raw = parseJsonObject(request.body, true);
  const body = new BodyReader(raw);
  const points = body.integer('points', true, -MAX_POINTS, MAX_POINTS) as number;
  if (points === 0) throw body.invalid('points', 'points must not be 0.');
  const reason = body.string('reason', false, 500);
  const customer = visibleCustomer(ctx, request.params[0]);
  if (customer === undefined) throw new HttpError(404, { error: 'Customer not found' });
  if (customer.blocked) throw new HttpError(422, { error: 'Customer is blocked' });
  if (customer.pointsApproved + points < 0) {
    throw envelopeError(422, `The customer has ${customer.pointsApproved} approved points; cannot remove ${-points}.`, 'insufficient_points');
  }
  const store = ctx.store;
  const at = store.stampWrite(ctx.clock());
  const activity = store.recordActivity({
    customer,
    value: points,
    state: 'approved',
    rule: { ...RULES.manual, title: reason ?? RULES.manual.title },
    flow: null,
    resource: null,
    at,
    visibleAt: store.tick,
  });
  ctx.ledger.record('add_points', customer.merchantId, raw, `${points > 0 ? '+' : ''}${points} points (activity ${activity.id})`, at);
  return { status: 201, body: '""', applied: true };
}

/** POST /v2/customers/{merchant_id}/claimed_rewards: spends approved points on a reward. */
export function claimReward(ctx: SimContext, request: RouteRequest): Reply {
  const raw = parseJsonObject(request.body, true);
  const body = new BodyReader(raw);
  const rewardId = body.integer('reward_id', true, 1, Number.MAX_SAFE_INTEGER) as number;
  body.number('multiplier');
  body.string('variant_id', false);
  body.string('ecom_action_id', false);
  body.oneOf('attribution', ['redemption_notification'] as const, false);
  const session = body.object('session');
  if (session !== undefined && (typeof session.token !== 'string' || (session.kind !== undefined && typeof session.kind !== 'string'))) {
    throw body.invalid('session', 'session must be an object with a string token and an optional string kind.');
  }
  const customer = visibleCustomer(ctx, request.params[0]);
  if (customer === undefined) throw envelopeError(404, `No customer with merchant_id "${request.params[0]}".`, 'not_found');
  const store = ctx.store;
  const reward = store.rewards.find((r) => r.id === rewardId);
  if (reward === undefined) throw envelopeError(404, `No reward with id ${rewardId}.`, 'not_found');
  if (customer.pointsApproved < reward.pointCost) {
    throw envelopeError(422, `The reward costs ${reward.pointCost} points; the customer has ${customer.pointsApproved} approved.`, 'insufficient_points');
  }
  const at = store.stampWrite(ctx.clock());
  store.spendPoints(customer, reward.pointCost, at, store.tick);
  const claimedRewardId = store.newId('claimedReward');
  const claimed = {
    id: claimedRewardId,
    claimed_at: iso(at),
    point_cost: reward.pointCost,
    redeemable: { redeemable_type: 'coupon', fulfilled: true, fulfilled_at: iso(at), expires_on: null },
    reward: rewardObject(reward),
    state: 'approved',
    session: { kind: session?.kind ?? 'cart', token: session?.token ?? `cart_${claimedRewardId}` },
    auto_refund_at: iso(at + 7 * DAY),
    expires_at: iso(at + 30 * DAY),
  };
  ctx.ledger.record('claim_reward', customer.merchantId, raw, `claimed reward ${reward.id} for ${reward.pointCost} points (claimed_reward ${claimedRewardId})`, at);
  return { status: 201, body: JSON.stringify({ claimed_reward: claimed }), applied: true };
}
