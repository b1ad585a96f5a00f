import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIMULATED_EPOCH, startSimulator } from '../../src/simulator/index.js';
import type { OldRecordChanges, SimulatorHandle, StreamName } from '../../src/simulator/index.js';
import { call, getList, walkBySinceId } from './helpers.js';
import type { IdRow } from './helpers.js';

const HOUR = 3600 * 1000;
const DAY = 24 * HOUR;

interface Stamped extends IdRow {
  created_at: string;
}

interface ActivityRow extends Stamped {
  state: string;
  value: number;
  customer: { id: number };
}

async function control(sim: SimulatorHandle, method: string, path: string, json?: unknown) {
  const response = await fetch(`${sim.url}/__sim/${path}`, { method, body: json === undefined ? undefined : JSON.stringify(json) });
  return { status: response.status, body: (await response.json()) as unknown };
}

describe('/__sim control routes', () => {
  let sim: SimulatorHandle;
  beforeAll(async () => {
    sim = await startSimulator({ size: 'tiny', pageOrder: 'oldest-first' });
  });
  afterAll(() => sim.close());

  it('tick, truth and stats work without a key', async () => {
    const before = (await control(sim, 'GET', 'truth/customers')).body as unknown[];
    expect(before).toEqual(sim.truth('customers'));
    expect(await control(sim, 'POST', 'tick', { steps: 2 })).toEqual({ status: 200, body: { ok: true } });
    expect(((await control(sim, 'GET', 'truth/customers')).body as unknown[]).length).toBeGreaterThan(before.length);
    expect((await control(sim, 'GET', 'truth/unsubscribes')).body).toEqual(sim.truth('unsubscribes'));
    expect((await control(sim, 'GET', 'stats')).body).toMatchObject({ requests: expect.any(Number), byStatus: expect.any(Object), faultsInjected: 0 });
  });

  it('faults, page order and rate limit can be set and cleared', async () => {
    expect((await control(sim, 'PUT', 'faults', { serverError: 1 })).status).toBe(200);
    expect((await control(sim, 'GET', 'faults')).body).toEqual({ serverError: 1 });
    expect((await call(sim, '/v2/identity/whoami')).status).toBeGreaterThanOrEqual(500);
    expect((await control(sim, 'DELETE', 'faults')).status).toBe(200);
    expect((await call(sim, '/v2/identity/whoami')).status).toBe(200);

    const ascending = ((await getList(sim, '/v2/orders?limit=2')).orders as { id: number }[]).map((o) => o.id);
    expect(ascending[0]).toBeLessThan(ascending[1]);
    await control(sim, 'PUT', 'page-order', { order: 'newest-first' });
    const descending = ((await getList(sim, '/v2/orders?limit=2')).orders as { id: number }[]).map((o) => o.id);
    expect(descending[0]).toBeGreaterThan(descending[1]);

    await control(sim, 'PUT', 'rate-limit', { requestsPerSecond: 0.001, burst: 1 });
    const statuses = [(await call(sim, '/v2/identity/whoami')).status, (await call(sim, '/v2/identity/whoami')).status];
    await control(sim, 'DELETE', 'rate-limit');
    expect(statuses).toEqual([200, 429]);
  });

  it('ledger lists applied writes', async () => {
    const customer = (sim.truth('customers') as { merchant_id: string; blocked: boolean }[]).find((c) => !c.blocked);
    await call(sim, `/v2/customers/${customer?.merchant_id}/points`, { method: 'POST', json: { points: 3 } });
    expect((await control(sim, 'GET', 'ledger')).body).toEqual([{ seq: 1, at: expect.any(String), kind: 'add_points', target: customer?.merchant_id, body: { points: 3 }, effect: expect.stringContaining('+3') }]);
  });

  it('refuses bad control requests with 400 and unknown ones with 404', async () => {
    expect((await control(sim, 'PUT', 'faults', { drop: 2 })).status).toBe(400);
    expect((await control(sim, 'POST', 'tick', { steps: 0 })).status).toBe(400);
    expect((await control(sim, 'PUT', 'page-order', { order: 'sideways' })).status).toBe(400);
    expect((await control(sim, 'PUT', 'rate-limit', { requestsPerSecond: 'fast', burst: 1 })).status).toBe(400);
    expect((await control(sim, 'GET', 'truth/reviews')).status).toBe(404);
    expect(await control(sim, 'POST', 'age-changes', { refund: { count: 1, minAgeDays: -1 } })).toEqual({
      status: 400,
      body: { error: { message: 'age-changes.refund.minAgeDays must be a number of days >= 0, got -1.', code: 'invalid_control' } },
    });
    expect((await control(sim, 'POST', 'age-changes', { expire: { count: 1, minAgeDays: 1 } })).status).toBe(400);
    expect((await control(sim, 'POST', 'age-changes', {})).status).toBe(400);
  });

  it('age-changes changes exactly the requested old records: approvals and voids with a transaction each, refunds and edits with none', async () => {
    const streams: StreamName[] = ['customers', 'orders', 'activities', 'transactions'];
    const before = Object.fromEntries(streams.map((s) => [s, new Map((sim.truth(s) as Stamped[]).map((row) => [row.id, row]))])) as Record<StreamName, Map<number, Stamped>>;
    const answer = await control(sim, 'POST', 'age-changes', {
      approve: { count: 2, minAgeDays: 45 },
      void: { count: 2, minAgeDays: 60 },
      refund: { count: 2, minAgeDays: 60 },
      edit: { count: 2, minAgeDays: 100 },
    });
    expect(answer.status).toBe(200);
    const changes = answer.body as OldRecordChanges;
    // Two ticks and a handful of writes (a second each) after the epoch.
    const clock = Date.parse(changes.clock);
    expect(clock - (SIMULATED_EPOCH + 2 * HOUR)).toBeGreaterThanOrEqual(0);
    expect(clock - (SIMULATED_EPOCH + 2 * HOUR)).toBeLessThan(HOUR);
    const activityBefore = (id: number) => before.activities.get(id) as ActivityRow;
    const ageOf = (stream: StreamName, id: number) => (clock - Date.parse(String(before[stream].get(id)?.created_at))) / DAY;
    for (const [ids, stream, minAge] of [[changes.approved, 'activities', 45], [changes.voided, 'activities', 60], [changes.refunded, 'orders', 60], [changes.edited, 'customers', 100]] as const) {
      expect(ids).toHaveLength(2);
      for (const id of ids) expect(ageOf(stream, id), `${stream} ${id}`).toBeGreaterThanOrEqual(minAge);
    }
    for (const id of changes.approved) expect(activityBefore(id).state).toBe('pending');

    // What changed, and nothing else: the truth over the control route and the API's lists agree.
    const after = Object.fromEntries(
      await Promise.all(streams.map(async (s) => [s, new Map(((await control(sim, 'GET', `truth/${s}`)).body as Stamped[]).map((row) => [row.id, row]))])),
    ) as Record<StreamName, Map<number, Stamped>>;
    const changed = (stream: StreamName) => [...before[stream].keys()].filter((id) => JSON.stringify(after[stream].get(id)) !== JSON.stringify(before[stream].get(id)));
    expect(changed('activities')).toEqual([...changes.approved, ...changes.voided].sort((a, b) => a - b));
    expect(changed('orders')).toEqual(changes.refunded);
    expect(changed('transactions')).toEqual([]);
    // Customers whose points moved change too; every edited one does.
    const pointsMoved = [...changes.approved, ...changes.voided].map((id) => activityBefore(id).customer.id);
    expect(changed('customers').sort((a, b) => a - b)).toEqual([...new Set([...changes.edited, ...pointsMoved])].sort((a, b) => a - b));

    const activities = new Map((await walkBySinceId(sim, '/v2/activities', 'activities', { limit: '500' })).map((a) => [a.id, a]));
    for (const id of changes.approved) expect(activities.get(id)).toMatchObject({ state: 'approved' });
    for (const id of changes.voided) expect(activities.get(id)).toMatchObject({ state: 'void' });
    const orders = new Map((await walkBySinceId(sim, '/v2/orders', 'orders', { limit: '500' })).map((o) => [o.id, o]));
    for (const id of changes.refunded) expect(orders.get(id)).toMatchObject({ refund_status: 'refunded', updated_at: expect.stringMatching(/^2026-03-01T14:/) });
    const editedListed = (await getList(sim, `/v2/customers?updated_at_min=${encodeURIComponent(changes.clock)}&limit=250`)).customers as IdRow[];
    expect(editedListed.map((c) => c.id)).toEqual(expect.arrayContaining(changes.edited));

    // One new transaction per approval and per void, embedding the activity as it now is; none for refunds or edits.
    const transactions = (await walkBySinceId<IdRow & { points_approved: number; points_pending: number; activity?: { id: number; state: string } }>(sim, '/v2/transactions', 'transactions', { limit: '500' })).filter(
      (t) => !before.transactions.has(t.id),
    );
    expect(transactions.map((t) => t.id)).toEqual(changes.transactions);
    const value = (id: number) => activityBefore(id).value;
    expect(transactions.map((t) => [t.activity?.id, t.activity?.state, t.points_approved, t.points_pending])).toEqual([
      ...changes.approved.map((id) => [id, 'approved', value(id), -value(id)]),
      ...changes.voided.map((id) => {
        const wasPending = activityBefore(id).state === 'pending';
        return [id, 'void', wasPending ? 0 : -value(id), wasPending ? -value(id) : 0];
      }),
    ]);
  });

  it('age-changes in process: too few records that old is one sentence, and nothing changes', () => {
    const truth = sim.truth('customers');
    expect(() => sim.changeOldRecords({ edit: { count: 2, minAgeDays: 1 }, approve: { count: 1000, minAgeDays: 45 } })).toThrow(
      /^age-changes\.approve asks for 1000 pending activities 45 or more days old at 2026-03-01T14:\d\d:\d\d\.\d{3}Z, but the simulator has \d+\.$/,
    );
    expect(sim.truth('customers')).toEqual(truth);
    const edited = sim.changeOldRecords({ edit: { count: 1, minAgeDays: 120, maxAgeDays: 130 } }).edited;
    const customer = (sim.truth('customers') as Stamped[]).find((c) => c.id === edited[0]);
    const age = SIMULATED_EPOCH + 2 * HOUR - Date.parse(String(customer?.created_at));
    expect(age).toBeGreaterThanOrEqual(120 * DAY - HOUR);
    expect(age).toBeLessThanOrEqual(130 * DAY);
  });
});
