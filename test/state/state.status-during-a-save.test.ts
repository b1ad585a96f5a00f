import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startCli } from '../helpers/process.js';
import { awsEnv, putText } from '../s3/helpers.js';
import { startAnswerGate, type AnswerGate } from './answerGate.js';
import { useStateStore } from './stateStore.js';

describe('status and queue list in the folder of a run that is saving (finding 1)', () => {
  const store = useStateStore({ seed: 312, size: 'tiny', epoch: Date.now() - 3_600_000, clock: Date.now, faults: { latencyMs: 50, seed: 312 } });
  const sim = () => store.sim();
  // The holder's first save: the store has written its log entry, and the answer is late, so the mirror's own
  // mark still names the state before it. A reader in the same folder then sees the mirror behind the bucket.
  let gate: AnswerGate;
  beforeAll(async () => {
    gate = await startAnswerGate(store.endpoint(), { hold: (request) => request.method === 'PUT' && request.path.includes('/gated/state/log/') && request.body.includes('"kind": "save"') });
  });
  afterAll(() => gate.close());

  it('never swap the live mirror: the holder saves its own file, and no write is sent twice', async () => {
    const envFor = () => store.freshRun('gated', { LOYALTY_PUSH__CONCURRENCY: '1', LOYALTY_PUSH__BACKOFF_BASE_MS: '0' });
    const customers = (sim().truth('customers') as Array<{ merchant_id: string; blocked: boolean }>).filter((c) => !c.blocked).slice(0, 5);
    const rows = customers.map((customer, index) => ({ merchant: customer.merchant_id, points: 61 + index }));
    expect((await runCli(['sync'], envFor())).code).toBe(0);
    await putText(store.client, store.bucket(), 'gated/inbox/add_points/batch.csv', ['customer_merchant_id,points,reason', ...rows.map((row) => `${row.merchant},${row.points},status during a save`), ''].join('\n'));

    const holder = envFor();
    const push = startCli(['push'], { ...holder.env, ...awsEnv(gate.endpoint) });
    await gate.held;
    // An operator looks at the queue and the status on the same host, in the same folder, meanwhile.
    const status = await runCli(['status'], holder);
    expect(status.code, status.stderr).toBe(0);
    const listed = await runCli(['queue', 'list'], holder);
    expect(listed.code, listed.stderr).toBe(0);
    const setAside = readdirSync(holder.dir).filter((name) => name.includes('replaced'));
    gate.open();
    const ended = await push.exited;
    expect(ended.code, push.stderr()).toBe(0);
    expect(existsSync(join(holder.dir, 'mirror.db'))).toBe(true);

    // The next run, in a fresh folder, finds every write recorded and sends none again.
    const next = await runCli(['push'], envFor());
    expect(next.code, next.stderr).toBe(0);
    const credits = sim().ledger().filter((entry) => entry.kind === 'add_points');
    for (const row of rows) {
      expect(credits.filter((entry) => entry.target === row.merchant && (entry.body as { points: number }).points === row.points), `${row.merchant} ${row.points}`).toHaveLength(1);
    }
    const jobs = JSON.parse((await runCli(['queue', 'list', '--json'], envFor())).stdout) as Array<{ state: string }>;
    expect(jobs.map((job) => job.state)).toEqual(rows.map(() => 'succeeded'));
    // Nor did they set the holder's mirror aside while it ran.
    expect(setAside).toEqual([]);
  });
});
