import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { runCli } from '../helpers/cli.js';
import { startCli } from '../helpers/process.js';
import { mirrorDiffAll } from '../helpers/sync.js';
import { seededRandom, STORE_KINDS, useStateStore } from './stateStore.js';

/** The shortest lease; each killed run's lease is let run out by moving the store's clock on. */
const LEASE_SECONDS = 30;

describe.each(STORE_KINDS)('runs killed at any moment, each in a fresh folder (state in a %s)', (kind) => {
  // Faults on: the kills land among retries and backoffs too. On the real clock, as a live API is: an unclear
  // write is proved by a transaction dated by the API near the attempt.
  const store = useStateStore({ seed: 30, size: 'tiny', epoch: Date.now() - 3_600_000, clock: Date.now, faults: { rateLimited: 0.05, serverError: 0.03, latencyMs: 20, seed: 30 } }, kind);
  const sim = () => store.sim();

  const envFor = () =>
    store.freshRun('killed', {
      LOYALTY_STATE__LEASE_SECONDS: String(LEASE_SECONDS),
      LOYALTY_API__REQUEST_TIMEOUT_MS: '10000',
      LOYALTY_STATE__LEASE_WAIT_SECONDS: '15',
      LOYALTY_EXPORT__FORMATS: 'csv,delta',
      LOYALTY_PUSH__BACKOFF_BASE_MS: '0',
    });

  it('loses no inbox write and sends none twice, and the state restores to the program', async () => {
    const customers = (sim().truth('customers') as Array<{ merchant_id: string; blocked: boolean }>).filter((c) => !c.blocked).slice(0, 6);
    const rows = customers.map((customer, index) => ({ merchant: customer.merchant_id, points: 11 + index }));
    const putInbox = (name: string, part: typeof rows) =>
      store.putText(`killed/inbox/add_points/${name}.csv`, ['customer_merchant_id,points,reason', ...part.map((row) => `${row.merchant},${row.points},kill test ${name}`), ''].join('\n'));
    await putInbox('first', rows.slice(0, 3));

    const first = await runCli(['sync'], envFor());
    expect(first.code, first.stderr).toBe(0);

    const next = seededRandom(Number(process.env.KILL_SEED ?? 27));
    const kills: string[] = [];
    const tookLease = 'took the lease on the state';
    const saving = 'saving the state to the bucket';
    // Each run is killed a random moment after the n-th time it logged `line`: inside its sync, push or export,
    // or inside a save (a push saves its jobs' running mark before it sends them). Each waits out the last one's lease.
    // `sent` kills a push just after the API applied one of its writes, before the push could record it.
    const sent = 'sent';
    const rounds: Array<[command: string, line: string, nth: number, maxDelayMs: number]> = [
      ['sync', tookLease, 1, 500],
      ['push', sent, 1, 20],
      ['push', saving, 1, 200],
      ['sync', saving, 1, 100],
      ['export', tookLease, 1, 800],
      ['push', sent, 1, 20],
      ['push', saving, 2, 200],
      ['export', saving, 1, 100],
      ['push', saving, 1, 300],
      ['sync', tookLease, 1, 300],
    ];
    for (const [round, [command, line, nth, maxDelayMs]] of rounds.entries()) {
      if (round === 5) await putInbox('second', rows.slice(3));
      const ledgerBefore = sim().ledger().length;
      const run = startCli([command], envFor().env);
      let seen = 0;
      let exited = false;
      void run.exited.then(() => (exited = true));
      const moment =
        line === sent
          ? (async () => {
              while (sim().ledger().length === ledgerBefore && !exited) await sleep(2);
              return !exited;
            })()
          : run.waitForLine((record) => record.msg === line && ++seen === nth).then(() => true, () => false);
      const reached = await Promise.race([moment, run.exited.then(() => false)]);
      const delay = Math.floor(next() * maxDelayMs);
      if (reached) await sleep(delay);
      run.child.kill('SIGKILL');
      await run.exited;
      // The killed run's lease runs out for the next one.
      store.advanceStoreClock((LEASE_SECONDS + 1) * 1000);
      kills.push(`${command} ${reached ? `killed ${delay} ms after "${line}" #${nth}` : `ended before "${line}" #${nth}`}`);
    }

    // Runs that complete. A write whose run was killed after its running mark was saved, whether or not it was
    // sent, is `unknown` until the customer's transactions prove it landed; never sent again blindly.
    const reconciled: string[] = [];
    for (let run = 0; run < 2; run += 1) {
      const done = await runCli(['push'], { env: { ...envFor().env, LOG_LEVEL: 'info' } });
      reconciled.push(done.stderr.split('\n').filter((text) => /unknown|reconcile|recovered|abandoned/.test(text)).join('\n'));
      expect(done.code, `${kills.join('; ')}\n${done.stderr}`).toBe(0);
    }
    const unknown = await runCli(['queue', 'list', '--state', 'unknown', '--json'], envFor());
    expect(unknown.code, unknown.stderr).toBe(0);
    const stuck = (JSON.parse(unknown.stdout) as Array<{ id: number; payload: { customer_merchant_id?: string; points?: number } }>);
    for (const job of stuck) {
      // Unknown and not in the ledger: killed before its request left. A person retries it (README, the write queue).
      expect(
        sim().ledger().filter((entry) => entry.kind === 'add_points' && entry.target === job.payload.customer_merchant_id && (entry.body as { points: number }).points === job.payload.points),
        `${JSON.stringify(job)} ${kills.join('; ')} ${reconciled.join('\n')}`,
      ).toHaveLength(0);
      expect((await runCli(['queue', 'retry', String(job.id)], envFor())).code).toBe(0);
    }
    const done = await runCli(['once'], envFor());
    expect(done.code, `${kills.join('; ')}\n${done.stderr}`).toBe(0);
    // The API's faults (429s, 5xx) may put a retried job off once more: later pushes send it, as a schedule would.
    for (let push = 0; push < 3; push += 1) {
      const left = await runCli(['queue', 'list', '--state', 'queued', '--json'], envFor());
      if ((JSON.parse(left.stdout) as unknown[]).length === 0) break;
      expect((await runCli(['push'], { env: { ...envFor().env, LOYALTY_PUSH__BACKOFF_BASE_MS: '0' } })).code).toBe(0);
    }

    const credits = sim().ledger().filter((entry) => entry.kind === 'add_points');
    for (const row of rows) {
      expect(credits.filter((entry) => entry.target === row.merchant && (entry.body as { points: number }).points === row.points), `${row.merchant} (${kills.join('; ')}; ${stuck.length} unknown retried)`).toHaveLength(1);
    }
    expect(credits).toHaveLength(rows.length);

    // A fresh folder restores the state and syncs the credits in: the mirror equals the program.
    const last = envFor();
    expect((await runCli(['sync'], last)).code).toBe(0);
    const db = openDatabase(join(last.dir, 'mirror.db'), { mustExist: true });
    try {
      expect(mirrorDiffAll(db, sim())).toEqual([]);
      expect(db.prepare("SELECT state, count(*) AS jobs FROM write_jobs GROUP BY state").all()).toEqual([{ state: 'succeeded', jobs: rows.length }]);
    } finally {
      db.close();
    }
    for (const name of ['first', 'second']) {
      const results = (await store.getBytes(`killed/outbox/add_points/${name}.results.csv`)).toString('utf8');
      expect(results.trim().split('\n').slice(1).every((line) => /,succeeded,$/.test(line)), results).toBe(true);
    }
  // Ten killed runs and the ones that complete, each restoring the state: minutes on a loaded machine.
  }, 600_000);
});
