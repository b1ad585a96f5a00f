import { expect, it } from 'vitest';
import { startScheduler } from '../../src/runtime/scheduler.js';
import { recordingLogger } from '../helpers/sync.js';

// A container paused or throttled at the moment a job is due, or an event loop busy then, fires the tick late.
// A daily export or verify whose tick comes two seconds late must still run, not wait a day.

const NEVER = '0 0 0 1 1 *';

/** Blocks this process's event loop, as a paused container or a long synchronous task does. */
function blockFor(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // Busy: no timer can fire.
  }
}

it('a tick fired three seconds late still runs its job, once', async () => {
  const ran: string[] = [];
  const { logger, records } = recordingLogger('debug');
  // Every ten seconds; the slot is the next multiple of ten seconds at least two seconds away.
  const scheduler = startScheduler({
    schedule: { timezone: 'UTC', sync: NEVER, push: NEVER, refresh: NEVER, deepRefresh: NEVER, verify: NEVER, export: '*/10 * * * * *' },
    logger,
    run: (job) => {
      ran.push(job);
      return Promise.resolve({ job, ok: true, summary: job });
    },
  });
  try {
    const slot = Math.ceil((Date.now() + 2_000) / 10_000) * 10_000;
    await new Promise((resolve) => setTimeout(resolve, slot - Date.now() - 500));
    expect(ran).toEqual([]);
    // From half a second before the slot to three seconds after it.
    blockFor(slot + 3_000 - Date.now());
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(ran).toEqual(['export']);
    expect(records.some((record) => /finishedAt/.test(JSON.stringify(record)) && record.job === 'export')).toBe(true);
  } finally {
    await scheduler.stop();
  }
});

it('ticks overtaken by a later tick of their job are logged as missed, and the latest one runs, once', async () => {
  const ran: string[] = [];
  const { logger, records } = recordingLogger('debug');
  const scheduler = startScheduler({
    schedule: { timezone: 'UTC', sync: NEVER, push: NEVER, refresh: NEVER, deepRefresh: NEVER, verify: NEVER, export: '*/2 * * * * *' },
    logger,
    run: (job) => {
      ran.push(job);
      return Promise.resolve({ job, ok: true, summary: job });
    },
  });
  try {
    const slot = Math.ceil((Date.now() + 1_000) / 2_000) * 2_000;
    await new Promise((resolve) => setTimeout(resolve, slot - Date.now() - 300));
    const before = ran.length;
    // Over the slot and the next two: the slot and the next are overtaken; the third fires 300 ms late.
    blockFor(slot + 4_300 - Date.now());
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(ran.length - before).toBe(1);
    const missed = records.filter((record) => record.job === 'export' && /was missed/.test(String(record.msg)));
    expect(missed.map((record) => record.slot)).toEqual([new Date(slot).toISOString(), new Date(slot + 2_000).toISOString()]);
  } finally {
    await scheduler.stop();
  }
});
