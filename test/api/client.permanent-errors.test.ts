import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import { ApiError, describeError } from '../../src/api/errors.js';
import type { Customer } from '../../src/api/types.js';
import { startSimulator } from '../../src/simulator/index.js';
import { testClient } from './helpers.js';

type Simulator = Awaited<ReturnType<typeof startSimulator>>;

let sim: Simulator;
let client: ApiClient;
let readOnly: ApiClient;
beforeAll(async () => {
  sim = await startSimulator({ seed: 8, size: 'tiny' });
  client = testClient(sim.url, sim.keys.full);
  readOnly = testClient(sim.url, sim.keys.readOnly);
});
afterAll(async () => {
  await client.close();
  await readOnly.close();
  await sim.close();
});

/** Runs the call, expects an ApiError, and checks the simulator saw exactly one request. */
async function singleFailure(call: () => Promise<unknown>): Promise<ApiError> {
  const before = sim.stats().requests;
  const error: unknown = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  expect(sim.stats().requests - before).toBe(1);
  return error as ApiError;
}

describe('a 4xx is not retried and surfaces the API message and code', () => {
  it('400: an invalid review update', async () => {
    const error = await singleFailure(() => client.updateReview('custom', 'rev-1003', { rating: 0 }));
    expect(error).toMatchObject({ kind: 'permanent', status: 400, apiMessage: expect.any(String) });
    expect(describeError(error)).toContain('PUT /v2/reviews/custom/rev-1003 failed: 400');
  });

  it('404: a review that does not exist', async () => {
    const error = await singleFailure(() => client.updateReview('custom', 'no-such-review', { status: 'approved' }));
    expect(error).toMatchObject({ kind: 'permanent', status: 404, code: 'not_found', apiMessage: expect.any(String) });
    expect(describeError(error)).toContain(error.apiMessage as string);
  });

  it('404: points for an unknown customer (plain-string error body)', async () => {
    const error = await singleFailure(() => client.addPoints('no-such-customer', { points: 1, reason: 'x' }));
    expect(error).toMatchObject({ kind: 'permanent', status: 404, apiMessage: expect.any(String) });
  });

  it('422: a review platform the credential may not use', async () => {
    const error = await singleFailure(() => client.deleteReview('acme-reviews', 'rev-1'));
    expect(error).toMatchObject({ kind: 'permanent', status: 422, code: 'unsupported_platform', apiMessage: expect.any(String) });
  });

  it('403: a review write without scope write_reviews', async () => {
    const error = await singleFailure(() => readOnly.deleteReview('custom', 'rev-1004'));
    expect(error).toMatchObject({ kind: 'permanent', status: 403 });
  });
});

describe('an ambiguous write', () => {
  it('apply-then-drop on add points is ambiguous, not retried, and applied once', async () => {
    const customer = (sim.truth('customers') as Customer[])[1];
    const ledgerBefore = sim.ledger().length;
    sim.setFaults({ applyThenDrop: 1 });
    try {
      const error = await singleFailure(() => client.addPoints(customer.merchant_id, { points: 77, reason: 'ambiguous' }));
      expect(error.kind).toBe('ambiguous');
      expect(describeError(error)).toContain('may or may not have been applied');
    } finally {
      sim.setFaults(null);
    }
    const applied = sim.ledger().slice(ledgerBefore).filter((entry) => entry.kind === 'add_points');
    expect(applied).toHaveLength(1);
    expect(applied[0]).toMatchObject({ target: customer.merchant_id, body: { points: 77, reason: 'ambiguous' } });
  });

  it('apply-then-drop on a claim is ambiguous too', async () => {
    const customer = (sim.truth('customers') as Customer[])[2];
    await client.addPoints(customer.merchant_id, { points: 5000, reason: 'for a claim' });
    const ledgerBefore = sim.ledger().length;
    sim.setFaults({ applyThenDrop: 1 });
    try {
      const error = await singleFailure(() => client.claimReward(customer.merchant_id, { reward_id: 1 }));
      expect(error.kind).toBe('ambiguous');
    } finally {
      sim.setFaults(null);
    }
    expect(sim.ledger().slice(ledgerBefore).filter((entry) => entry.kind === 'claim_reward')).toHaveLength(1);
  });
});
