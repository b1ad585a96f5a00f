import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startCli } from '../helpers/process.js';
import { startRetryAfterProxy } from '../helpers/retryAfterProxy.js';
import { startFaultProxy } from '../s3/faultProxy.js';
import { awsEnv } from '../s3/helpers.js';
import { useStateStore } from './stateStore.js';

const LEASE_SECONDS = 30;

/**
 * A lease on the real clock across the waits of a run: a last save slower than the lease, and a 429's wait
 * longer than what is left of it. These wait the lease out for real: a live holder's own clock is what
 * is under test.
 */
// The two tests wait on the real clock, on prefixes and customers of their own: run side by side.
describe.concurrent('the lease across long waits', () => {
  const store = useStateStore({ seed: 33, size: 'tiny' });
  const sim = () => store.sim();
  const customers = () => (sim().truth('customers') as Array<{ merchant_id: string; blocked: boolean }>).filter((c) => !c.blocked);
  const credits = (merchant: string) => sim().ledger().filter((entry) => entry.kind === 'add_points' && entry.target === merchant);
  const envFor = (prefix: string, settings: Record<string, string> = {}) =>
    store.freshRun(prefix, { LOYALTY_STATE__LEASE_SECONDS: String(LEASE_SECONDS), LOYALTY_API__REQUEST_TIMEOUT_MS: '10000', ...settings });

  it("keeps renewing through a run's last save, however slow: a run started meanwhile skips, and the push's completion is saved", async ({ expect }) => {
    const customer = customers()[0];
    const queued = await runCli(['queue', 'add-points', '--customer', customer.merchant_id, '--points', '21', '--reason', 'slow last save'], envFor('slow-save'));
    expect(queued.code, queued.stderr).toBe(0);

    // The push saves twice: its job's running mark before sending, then its completion at the end. The second upload takes longer than a lease.
    let dumps = 0;
    let slowSince = 0;
    const slow = await startFaultProxy(store.endpoint(), {
      writeDelay: (write) => {
        if (write.method !== 'PUT' || !write.path.includes('/state/dumps/') || ++dumps !== 2) return 0;
        slowSince = performance.now();
        return (LEASE_SECONDS + 10) * 1000;
      },
    });
    try {
      const push = startCli(['push'], envFor('slow-save', awsEnv(slow.endpoint)).env);
      while (slowSince === 0) await sleep(100);
      await sleep((LEASE_SECONDS + 3) * 1000 - (performance.now() - slowSince));

      const meanwhile = await runCli(['once'], envFor('slow-save'));
      expect(meanwhile.code, meanwhile.stderr).toBe(0);
      expect(meanwhile.stdout).toMatch(/^once: skipped: the state at s3:\/\/\S+\/slow-save is leased to push on /m);
      const { code } = await push.exited;
      expect(code, push.stderr()).toBe(0);
    } finally {
      await slow.close();
    }
    expect(credits(customer.merchant_id)).toHaveLength(1);
    const list = await runCli(['queue', 'list', '--json'], envFor('slow-save'));
    expect(list.code, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as Array<{ state: string }>).map((job) => job.state)).toEqual(['succeeded']);
  });

  it('checks the lease again right before a write leaves, after a 429 wait longer than the lease had left: a run cut off from the store sends nothing', async ({ expect }) => {
    const [first, second] = customers().slice(1, 3);
    for (const customer of [first, second]) {
      const queued = await runCli(['queue', 'add-points', '--customer', customer.merchant_id, '--points', '22', '--reason', 'after a wait'], envFor('gap'));
      expect(queued.code, queued.stderr).toBe(0);
    }
    // The first write is answered 429, Retry-After 30: every request after it waits 30 s, more than the lease has left.
    const api = await startRetryAfterProxy({ target: sim().url, retryAfter: String(LEASE_SECONDS), throttles: (request) => request.method === 'POST' && api.throttled.length === 0 });
    // Once the second job's running mark is saved, the run loses the store: its renewals fail, and its lease runs out.
    let cut = false;
    const store2 = await startFaultProxy(store.endpoint(), {
      fault: (write) => {
        if (cut) return 'deny';
        if (api.throttled.length > 0 && write.method === 'PUT' && write.path.includes('/state/log/')) cut = true;
        return 'pass';
      },
    });
    try {
      const push = await runCli(['push'], envFor('gap', { ...awsEnv(store2.endpoint), LOYALTY_BASE_URL: api.url, LOYALTY_PUSH__CONCURRENCY: '1' }));
      expect(api.throttled).toHaveLength(1);
      expect(cut).toBe(true);
      expect(push.code, push.stderr).toBe(1);
    } finally {
      await api.close();
      await store2.close();
    }
    // Neither write reached the API: the first was refused, the second was never sent once the lease could not be confirmed.
    expect(credits(first.merchant_id)).toHaveLength(0);
    expect(credits(second.merchant_id)).toHaveLength(0);
  });
});
