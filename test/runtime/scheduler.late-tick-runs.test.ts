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

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/**
 * Starts a scheduler whose export runs every `periodSeconds`, waits until just before a slot at least two seconds
 * away, then blocks the event loop from there until `blockedPastMs` after the slot. A machine too loaded to wake
 * before the slot tries the next one. Returns when each run started, the slot, and the log.
 */
async function blockOverSlot(periodSeconds: number, blockedPastMs: number) {
  const starts: number[] = [];
  const { logger, records } = recordingLogger('debug');
  const scheduler = startScheduler({
    schedule: { timezone: 'UTC', sync: NEVER, push: NEVER, refresh: NEVER, deepRefresh: NEVER, verify: NEVER, export: `*/${periodSeconds} * * * * *` },
    logger,
    run: (job) => {
      starts.push(Date.now());
      return Promise.resolve({ job, ok: true, summary: job });
    },
  });
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      const period = periodSeconds * 1000;
      const slot = Math.ceil((Date.now() + 2_000) / period) * period;
      await sleep(slot - Date.now() - 600);
      // Woken too late to hold this slot's tick back: the next slot.
      if (Date.now() >= slot - 100) continue;
      const before = starts.length;
      blockFor(slot + blockedPastMs - Date.now());
      await sleep(1_500);
      return { slot, runs: starts.slice(before), records };
    }
    throw new Error('the event loop never woke before a slot: the machine is too loaded to hold a tick back');
  } finally {
    await scheduler.stop();
  }
}

it('a tick fired three seconds late still runs its job, once', async () => {
  // Every five seconds: three seconds late is still before the next tick.
  const { slot, runs, records } = await blockOverSlot(5, 3_000);
  expect(runs).toHaveLength(1);
  expect(runs[0]).toBeGreaterThanOrEqual(slot + 3_000);
  expect(records.some((record) => record.job === 'export' && typeof record.finishedAt === 'string')).toBe(true);
});

it('ticks overtaken by a later tick of their job are logged as missed, and the latest one runs, once', async () => {
  // Over the slot and the next: both are overtaken; the one after fires late and runs.
  const { slot, runs, records } = await blockOverSlot(2, 4_300);
  expect(runs).toHaveLength(1);
  expect(runs[0]).toBeGreaterThanOrEqual(slot + 4_300);
  const missed = records.filter((record) => record.job === 'export' && /was missed/.test(String(record.msg)));
  expect(missed.map((record) => record.slot)).toEqual([new Date(slot).toISOString(), new Date(slot + 2_000).toISOString()]);
});
