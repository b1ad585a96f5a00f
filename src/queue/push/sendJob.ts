import type { ApiClient } from '../../api/client.js';
import type { AddPointsBody, ClaimRewardBody, CreateOrderBody, UpdateReviewBody } from '../../api/types.js';
import type { JobPayload, WriteJob } from '../types.js';

export interface SendResult {
  /** The status the endpoint answers on success (spec part 4). */
  status: number;
  /** The API's answer as JSON text; `""` where the spec gives an empty string body. */
  response: string;
}

/**
 * One attempt of a job through the client, without the client's own retries: the queue keeps
 * the backoff state across runs. No abort signal is passed: once sent, a write runs to its answer.
 */
export async function sendJob(client: ApiClient, job: WriteJob): Promise<SendResult> {
  const options = { retry: false };
  const p = job.payload;
  switch (job.kind) {
    case 'add_points':
      await client.addPoints(String(p.customer_merchant_id), without(p, 'customer_merchant_id') as unknown as AddPointsBody, options);
      return { status: 201, response: '""' };
    case 'claim_reward': {
      const claimed = await client.claimReward(String(p.customer_merchant_id), without(p, 'customer_merchant_id') as unknown as ClaimRewardBody, options);
      return { status: 201, response: JSON.stringify({ claimed_reward: claimed }) };
    }
    case 'update_review': {
      const review = await client.updateReview(String(p.platform), String(p.merchant_id), without(p, 'platform', 'merchant_id') as UpdateReviewBody, options);
      return { status: 200, response: JSON.stringify({ review }) };
    }
    case 'delete_review': {
      const result = await client.deleteReview(String(p.platform), String(p.merchant_id), options);
      return { status: 200, response: JSON.stringify(result) };
    }
    case 'create_order':
      await client.createOrder(p as unknown as CreateOrderBody, options);
      return { status: 201, response: '""' };
  }
}

/** The request body: the payload minus the fields that go in the path. */
function without(payload: JobPayload, ...keys: string[]): JobPayload {
  return Object.fromEntries(Object.entries(payload).filter(([key]) => !keys.includes(key)));
}
