import { CUSTOM_PLATFORM, EMPTY_PARTNER_PLATFORM } from '../catalog.js';
import { BodyReader } from '../body.js';
import type { RouteRequest, SimContext } from '../context.js';
import { envelopeError, parseJsonObject } from '../http.js';
import type { Reply } from '../http.js';
import { REVIEW_STATUSES } from '../model.js';
import type { Review } from '../model.js';
import { reviewJson } from '../serialize.js';

const SUPPORTED_PLATFORMS = [CUSTOM_PLATFORM, EMPTY_PARTNER_PLATFORM];
/** Points the review rule awards when a review is approved. */
const REVIEW_POINTS = 50;

function findReview(ctx: SimContext, platform: string, merchantId: string): Review {
  if (!SUPPORTED_PLATFORMS.includes(platform)) {
    throw envelopeError(422, `The review platform "${platform}" is not supported for this API key.`, 'unsupported_platform');
  }
  const review = ctx.store.reviews.get(`${platform}/${merchantId}`);
  if (review === undefined) throw envelopeError(404, `No review "${merchantId}" on platform "${platform}".`, 'not_found');
  return review;
}

/** PUT /v2/reviews/{platform}/{merchant_id}. Approving a review triggers the review rule once. */
export function updateReview(ctx: SimContext, request: RouteRequest): Reply {
  const [platform, merchantId] = request.params;
  const review = findReview(ctx, platform, merchantId);
  const raw = parseJsonObject(request.body, true);
  const body = new BodyReader(raw);
  const status = body.oneOf('status', REVIEW_STATUSES, true);
  const fullText = body.string('full_text', false, 10_000);
  const rating = body.integer('rating', false, 1, Number.MAX_SAFE_INTEGER);
  const images = body.integer('images_count', false, 0, 1000);
  const videos = body.integer('videos_count', false, 0, 1000);
  const date = body.timestamp('date');
  if (review.deleted) throw envelopeError(404, `Review "${merchantId}" was deleted.`, 'not_found');

  const store = ctx.store;
  const at = store.stampWrite(ctx.clock());
  const before = review.status;
  if (status !== undefined) review.status = status;
  if (fullText !== undefined) review.fullText = fullText;
  if (rating !== undefined) review.rating = rating;
  if (images !== undefined) review.imagesCount = images;
  if (videos !== undefined) review.videosCount = videos;
  review.updatedAt = date ?? at;
  let effect = `status ${before} → ${review.status}`;
  const rewarded = review.activities.some((a) => a.state !== 'void');
  if (review.status === 'approved' && !rewarded) {
    const activity = store.reviewActivity(review, REVIEW_POINTS, at, store.tick);
    effect += `, +${REVIEW_POINTS} points (activity ${activity.id})`;
  }
  ctx.ledger.record('update_review', `${platform}/${merchantId}`, raw, effect, at);
  return { status: 200, body: `{"review":${reviewJson(review)}}`, applied: true };
}

/** DELETE /v2/reviews/{platform}/{merchant_id}: voids the review's activities; a second delete answers deleted:false. */
export function deleteReview(ctx: SimContext, request: RouteRequest): Reply {
  const [platform, merchantId] = request.params;
  const review = findReview(ctx, platform, merchantId);
  const store = ctx.store;
  const at = store.stampWrite(ctx.clock());
  const target = `${platform}/${merchantId}`;
  if (review.deleted) {
    ctx.ledger.record('delete_review', target, null, 'already deleted', at);
    return { status: 200, body: '{"deleted":false}', applied: true };
  }
  review.deleted = true;
  const voided = review.activities.filter((activity) => store.voidActivity(activity, at, store.tick)).length;
  ctx.ledger.record('delete_review', target, null, voided > 0 ? `deleted, voided ${voided} activities` : 'deleted', at);
  return { status: 200, body: '{"deleted":true}', applied: true };
}
