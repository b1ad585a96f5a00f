import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { call } from './helpers.js';

const MINUTE = 60_000;
const EPOCH = Date.UTC(2026, 5, 1, 9, 0, 0);

interface TransactionRow {
  id: number;
  created_at: string;
  customer: { id: number };
}

/** The Date header as the moment it names (whole seconds). */
function dateHeader(answer: { headers: Headers }): number {
  return Date.parse(answer.headers.get('date') ?? 'absent');
}

describe('the simulator clock', () => {
  let sim: SimulatorHandle;
  /** What the simulator's wall clock reads; the test moves it. */
  let wall = EPOCH + 30 * MINUTE;
  let merchantId: string;
  beforeAll(async () => {
    sim = await startSimulator({ size: 'tiny', seed: 3, epoch: EPOCH, clock: () => wall });
    merchantId = (sim.truth('customers') as Array<{ merchant_id: string; blocked: boolean }>).find((c) => !c.blocked)!.merchant_id;
  });
  afterAll(() => sim.close());

  const addPoints = (reason: string) => call(sim, `/v2/customers/${merchantId}/points`, { method: 'POST', json: { points: 5, reason } });
  const lastTransaction = () => (sim.truth('transactions') as TransactionRow[]).at(-1)!;

  it('stamps a write through the API with the time it was applied, and every answer carries that clock in its Date header', async () => {
    wall = EPOCH + 37 * MINUTE + 250;
    const answer = await addPoints('applied at 09:37');
    expect(answer.status).toBe(201);
    expect(lastTransaction().created_at).toBe('2026-06-01T09:37:00.250Z');
    expect(sim.ledger().at(-1)?.at).toBe('2026-06-01T09:37:00.250Z');
    expect(answer.headers.get('date')).toBe('Mon, 01 Jun 2026 09:37:00 GMT');

    // Answers of every kind: a list, an unknown path, no key, a control route, the server's 429 and an injected 500.
    wall = EPOCH + 41 * MINUTE;
    const answers = [await call(sim, '/v2/customers?limit=1'), await call(sim, '/v2/nowhere'), await call(sim, '/v2/customers', { key: null }), await call(sim, '/__sim/stats', { key: null })];
    sim.setRateLimit({ requestsPerSecond: 1, burst: 1 });
    answers.push(await call(sim, '/v2/identity/whoami'), await call(sim, '/v2/identity/whoami'));
    sim.setRateLimit(null);
    sim.setFaults({ serverError: 1 });
    answers.push(await call(sim, '/v2/identity/whoami'));
    sim.setFaults(null);
    expect(answers.map((a) => a.status)).toEqual([200, 404, 401, 200, 200, 429, 500]);
    for (const answer of answers) expect(dateHeader(answer), `answer ${answer.status}`).toBe(EPOCH + 41 * MINUTE);
  });

  it('keeps its own time moving forward: a tick starts after the writes, and a write after a tick that ran ahead of the clock comes after its rows', async () => {
    const write = Date.parse(lastTransaction().created_at);
    const before = lastTransaction().id;
    sim.tick(1);
    const ticked = (sim.truth('transactions') as TransactionRow[]).filter((t) => t.id > before).map((t) => Date.parse(t.created_at));
    expect(ticked.length).toBeGreaterThan(0);
    expect(Math.min(...ticked)).toBeGreaterThan(write);

    // The tick moved the simulated time an hour on; the wall clock has moved a minute.
    wall += MINUTE;
    const answer = await addPoints('after the tick');
    expect(answer.status).toBe(201);
    const after = Date.parse(lastTransaction().created_at);
    expect(after).toBeGreaterThan(Math.max(...ticked));
    expect(after).toBeGreaterThan(wall + 30 * MINUTE);
    // The header names the same second as the write's timestamp, not the wall clock's.
    expect(dateHeader(answer)).toBe(Math.floor(after / 1000) * 1000);
  });
});
