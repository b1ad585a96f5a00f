import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { SimulatorHandle } from '../../src/simulator/index.js';
import { call } from './helpers.js';

describe('authentication and scopes', () => {
  let sim: SimulatorHandle;
  beforeAll(async () => {
    sim = await startSimulator({ size: 'tiny' });
  });
  afterAll(() => sim.close());

  it('answers 401 with an error envelope for a missing or unknown key', async () => {
    for (const key of [null, 'not-a-key']) {
      for (const path of ['/v2/identity/whoami', '/v2/customers', '/v2/no-such-endpoint']) {
        const answer = await call(sim, path, { key });
        expect(answer.status).toBe(401);
        expect(answer.body).toMatchObject({ error: { message: expect.any(String) } });
      }
    }
  });

  it('whoami returns the api_key identity with the credential scopes', async () => {
    const full = await call(sim, '/v2/identity/whoami');
    expect(full.status).toBe(200);
    expect(full.body).toEqual({ identity: { kind: 'api_key', account_id: expect.any(Number), program_id: expect.any(Number), scopes: expect.arrayContaining(['read_customers', 'read_orders', 'write_reviews']), integration: null } });
    const readOnly = await call(sim, '/v2/identity/whoami', { key: sim.keys.readOnly });
    const scopes = (readOnly.body as { identity: { scopes: string[] } }).identity.scopes;
    expect(scopes).toContain('read_customers');
    expect(scopes.some((scope) => scope.startsWith('write_'))).toBe(false);
  });

  it('the read-only key reads lists but gets 403 on review and other writes', async () => {
    const key = sim.keys.readOnly;
    expect((await call(sim, '/v2/transactions?limit=1', { key })).status).toBe(200);
    const writes = [
      { method: 'PUT', path: '/v2/reviews/custom/rev-1000', json: { status: 'approved' } },
      { method: 'DELETE', path: '/v2/reviews/custom/rev-1000' },
      { method: 'POST', path: '/v2/customers/x/points', json: { points: 1 } },
      { method: 'POST', path: '/v2/orders', json: {} },
    ];
    for (const write of writes) {
      const answer = await call(sim, write.path, { ...write, key });
      expect(answer.status, write.path).toBe(403);
      expect(answer.body).toMatchObject({ error: { message: expect.any(String) } });
    }
  });

  it('unknown paths answer 404 and wrong methods 405, in the envelope', async () => {
    expect(await call(sim, '/v2/nothing-here')).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    expect((await call(sim, '/v2/customers', { method: 'DELETE' })).status).toBe(405);
  });
});
