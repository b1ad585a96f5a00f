import { renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startCli } from '../helpers/process.js';
import { putText } from '../s3/helpers.js';
import { useStateStore } from './stateStore.js';

describe('a run whose mirror file is deleted or renamed during its push', () => {
  // On the real clock, as a live API is: a write in doubt is proved by a transaction dated near the attempt.
  // Slow answers, so the mirror goes while the push still has writes to send.
  const store = useStateStore({ seed: 311, size: 'tiny', epoch: Date.now() - 3_600_000, clock: Date.now, faults: { latencyMs: 150, seed: 311 } });
  const sim = () => store.sim();

  const cases: Array<[string, number, (mirror: string) => void]> = [
    ['renamed (moved away by hand or by another program)', 0, (mirror) => renameSync(mirror, `${mirror}.moved`)],
    ['deleted (a temp cleaner)', 6, (mirror) => ['', '-wal', '-shm'].forEach((suffix) => rmSync(`${mirror}${suffix}`, { force: true }))],
  ];
  for (const [how, offset, lose] of cases) {
    it(`sends no write twice when the mirror is ${how}: the next run finds each write recorded, or marks it unknown`, async () => {
      const prefix = `lost-${offset}`;
      const envFor = () => store.freshRun(prefix, { LOYALTY_PUSH__CONCURRENCY: '1', LOYALTY_PUSH__BACKOFF_BASE_MS: '0' });
      const customers = (sim().truth('customers') as Array<{ merchant_id: string; blocked: boolean }>).filter((c) => !c.blocked).slice(offset, offset + 6);
      const rows = customers.map((customer, index) => ({ merchant: customer.merchant_id, points: 41 + offset + index }));
      expect((await runCli(['sync'], envFor())).code).toBe(0);
      await putText(store.client, store.bucket(), `${prefix}/inbox/add_points/batch.csv`, ['customer_merchant_id,points,reason', ...rows.map((row) => `${row.merchant},${row.points},lost mirror`), ''].join('\n'));

      const holder = envFor();
      const ledgerBefore = sim().ledger().length;
      const push = startCli(['push'], holder.env);
      let exited = false;
      void push.exited.then(() => (exited = true));
      while (sim().ledger().length === ledgerBefore && !exited) await sleep(2);
      expect(exited, 'the push ended before it sent a write').toBe(false);
      lose(join(holder.dir, 'mirror.db'));
      const ended = await push.exited;

      // The next run, in a fresh folder: it restores what the bucket holds and pushes the rest.
      const next = await runCli(['push'], envFor());
      expect(next.code, next.stderr).toBe(0);
      const listed = await runCli(['queue', 'list', '--json'], envFor());
      const jobs = JSON.parse(listed.stdout) as Array<{ state: string; payload: { customer_merchant_id: string; points: number } }>;
      const credits = sim().ledger().filter((entry) => entry.kind === 'add_points');
      for (const row of rows) {
        const sent = credits.filter((entry) => entry.target === row.merchant && (entry.body as { points: number }).points === row.points);
        const job = jobs.find((candidate) => candidate.payload.customer_merchant_id === row.merchant && candidate.payload.points === row.points);
        expect(sent.length, `${row.merchant} ${row.points}`).toBeLessThanOrEqual(1);
        // Recorded as sent, or unknown for a person to check; never queued to go again.
        expect(job?.state === 'succeeded' ? sent.length : job?.state, `${row.merchant} ${row.points}`).toBe(job?.state === 'succeeded' ? 1 : 'unknown');
      }
      // The run that lost its mirror stopped sending and said why.
      expect(ended.code, push.stderr()).toBe(1);
      expect(push.stderr()).toMatch(/The mirror \S+mirror\.db was deleted or renamed while this run used it; nothing more is saved or sent/);
    });
  }
});
