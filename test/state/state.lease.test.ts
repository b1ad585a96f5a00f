import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/open.js';
import { beginStateSession } from '../../src/state/session.js';
import { runCli } from '../helpers/cli.js';
import { startCli } from '../helpers/process.js';
import { mirrorDiffAll, recordingLogger } from '../helpers/sync.js';
import { STORE_KINDS, MODEST_PROGRAM, useStateStore } from './stateStore.js';

/** The shortest lease; a run that is gone is let run out by moving the store's clock on, not by waiting. */
const LEASE_SECONDS = 30;

describe.each(STORE_KINDS)('the lease on the state in a %s', (kind) => {
  const store = useStateStore({ seed: 28, size: MODEST_PROGRAM }, kind);
  const sim = () => store.sim();

  /** A run in a folder of its own on the state at `prefix`, with a short lease. */
  const envFor = (prefix: string, settings: Record<string, string> = {}) =>
    store.freshRun(prefix, {
      LOYALTY_STATE__LEASE_SECONDS: String(LEASE_SECONDS),
      // Each write to the API must fit in five sixths of the lease.
      LOYALTY_API__REQUEST_TIMEOUT_MS: '10000',
      // Small pages: a whole sync takes seconds, long enough to be caught holding the lease.
      LOYALTY_API__PAGE_SIZE: '25',
      ...settings,
    });
  const tookLease = (line: Record<string, unknown>) => line.msg === 'took the lease on the state';

  it('lets one of two runs started together work and the other skip, and sends nothing twice', async () => {
    const customer = (sim().truth('customers') as Array<{ merchant_id: string; blocked: boolean }>).find((c) => !c.blocked)!;
    const queued = await runCli(['queue', 'add-points', '--customer', customer.merchant_id, '--points', '15', '--reason', 'two at once'], envFor('together'));
    expect(queued.code, queued.stderr).toBe(0);
    const ledgerBefore = sim().ledger().length;

    const [first, second] = await Promise.all([runCli(['once'], envFor('together')), runCli(['once'], envFor('together'))]);
    expect(first.code, first.stderr).toBe(0);
    expect(second.code, second.stderr).toBe(0);
    const skipped = [first, second].filter((result) => /^once: skipped: the state at \S+ is leased to once on \S+ \(pid \d+\) until \d{4}-\d\d-\d\dT[\d:.]+Z\.$/m.test(result.stdout));
    expect(skipped, `${first.stdout}\n---\n${second.stdout}`).toHaveLength(1);
    const credits = sim().ledger().slice(ledgerBefore).filter((entry) => entry.kind === 'add_points' && entry.target === customer.merchant_id);
    expect(credits).toHaveLength(1);
  });

  it('fences off a run paused past its lease: another takes over, and the paused one cannot save and exits 1 with one sentence', async () => {
    const paused = startCli(['sync'], envFor('paused').env);
    await paused.waitForLine(tookLease);
    paused.child.kill('SIGSTOP');
    store.advanceStoreClock((LEASE_SECONDS + 2) * 1000);

    const other = envFor('paused');
    const takeover = await runCli(['sync'], other);
    expect(takeover.code, takeover.stderr).toBe(0);

    paused.child.kill('SIGCONT');
    const { code } = await paused.exited;
    expect(code).toBe(1);
    // The sync's streams say they stopped; the last line says why, in one sentence.
    expect(paused.stderr().trim().split('\n').at(-1)).toMatch(/^loyalty-sync: This run lost its lease on the state at \S+\/paused: sync on \S+ \(pid \d+\) wrote entry \d+ at \S+ \(the lease ran out while this run was held up\); nothing more of this run is saved\.$/);

    // The bucket holds the run that took over: a fresh folder restores the whole program.
    const check = envFor('paused');
    // (queue list would read a copy of its own and remove it: restore the newest state into the folder instead.)
    expect((await runCli(['state', 'restore', '--as-of', new Date(Date.now() + 60_000).toISOString()], check)).code).toBe(0);
    const db = openDatabase(join(check.dir, 'mirror.db'), { mustExist: true });
    try {
      expect(mirrorDiffAll(db, sim())).toEqual([]);
    } finally {
      db.close();
    }
  });

  it('fences off a run paused past its lease also once later runs pruned the log entries after its own, so it sends nothing twice', async () => {
    const customer = (sim().truth('customers') as Array<{ merchant_id: string; blocked: boolean }>).filter((c) => !c.blocked)[1];
    const queued = await runCli(['queue', 'add-points', '--customer', customer.merchant_id, '--points', '16', '--reason', 'paused for long'], envFor('pruned'));
    expect(queued.code, queued.stderr).toBe(0);
    const credits = () => sim().ledger().filter((entry) => entry.kind === 'add_points' && entry.target === customer.merchant_id);

    const paused = startCli(['push'], envFor('pruned').env);
    await paused.waitForLine(tookLease);
    paused.child.kill('SIGSTOP');
    store.advanceStoreClock((LEASE_SECONDS + 2) * 1000);

    // Another run takes over and sends the write; then many short runs come and go, and prune the old entries.
    const takeover = await runCli(['push'], envFor('pruned'));
    expect(takeover.code, takeover.stderr).toBe(0);
    expect(credits()).toHaveLength(1);
    Object.assign(process.env, store.processEnv());
    for (let run = 0; run < 12; run += 1) {
      const config = loadConfig({ env: envFor('pruned').env });
      const begun = await beginStateSession({ config, logger: recordingLogger().logger, command: 'queue', mode: 'wait' });
      if (!('session' in begun)) throw new Error('the lease should be free');
      await begun.session.end();
    }

    paused.child.kill('SIGCONT');
    const { code } = await paused.exited;
    expect(credits()).toHaveLength(1);
    expect(code).toBe(1);
    expect(paused.stderr().trim().split('\n').at(-1)).toMatch(/^loyalty-sync: This run lost its lease on the state at \S+\/pruned: /);
  });

  it('makes other commands wait a bounded time, then exit 1 naming the holder; a killed holder frees the state when its lease runs out', async () => {
    const holder = startCli(['run'], envFor('held').env);
    await holder.waitForLine(tookLease);

    const waited = await runCli(['sync'], envFor('held', { LOYALTY_STATE__LEASE_WAIT_SECONDS: '1' }));
    expect(waited.code).toBe(1);
    expect(waited.stderr.trim()).toMatch(/^loyalty-sync: The state at \S+\/held is leased to run on \S+ \(pid \d+\) until \S+; waited 1 s \(state\.leaseWaitSeconds\) for it to end\.$/);
    const once = await runCli(['once'], envFor('held'));
    expect(once.code, once.stderr).toBe(0);
    expect(once.stdout).toMatch(/^once: skipped: the state at \S+\/held is leased to run on /m);

    holder.child.kill('SIGKILL');
    await holder.exited;
    // Nobody releases a killed run's lease; it runs out, and the next run takes over by itself.
    store.advanceStoreClock((LEASE_SECONDS - 5) * 1000);
    const next = await runCli(['sync'], envFor('held', { LOYALTY_STATE__LEASE_WAIT_SECONDS: '20' }));
    expect(next.code, next.stderr).toBe(0);
  });
});
