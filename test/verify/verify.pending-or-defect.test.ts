import { afterEach, describe, expect, it } from 'vitest';
import type { StreamName } from '../../src/config.js';
import type { Db } from '../../src/db/open.js';
import { sameJson } from '../../src/db/sameJson.js';
import { lastVerifyFact } from '../../src/runtime/verifyFacts.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { completeDeepRefresh } from '../../src/sync/deepRefreshState.js';
import { runSync } from '../../src/sync/index.js';
import { runVerify, type StreamVerifyResult } from '../../src/verify/index.js';
import { freshMirror } from '../helpers/tempDir.js';
import { mirrorDiffAll, recordingLogger, testClient, testConfig } from '../helpers/sync.js';
import { syncMirror, verifyCli } from './helpers.js';

let sim: SimulatorHandle | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
const STREAMS: StreamName[] = ['orders', 'activities', 'transactions'];
const JUDGED = ['--stream', 'orders', '--stream', 'activities'];

/** Ids whose record in the simulator differs from the mirror's row, or that the mirror lacks. */
function differingIds(db: Db, source: SimulatorHandle, stream: StreamName): number[] {
  const raw = new Map((db.prepare(`SELECT id, raw FROM ${stream} WHERE _removed_at IS NULL`).all() as Array<{ id: number; raw: string }>).map((row) => [row.id, row.raw]));
  return (source.truth(stream) as Array<{ id: number }>).filter((record) => !sameJson(raw.get(record.id) ?? 'null', JSON.stringify(record))).map((record) => record.id);
}

function pendingRow(result: StreamVerifyResult | undefined, id: number) {
  return result?.pending.rows.find((row) => row.id === id);
}

const sorted = (ids: Array<number | string>) => [...ids].sort((a, b) => Number(a) - Number(b));

describe('verify on a live program whose old records change', () => {
  it('names the pass that brings each pending change and when, fails only on defects, and --repair fixes both', async () => {
    sim = await startSimulator({ seed: 11, size: 'small' });
    const { db, path } = freshMirror();
    await syncMirror(sim, db, path, STREAMS);
    // A deep refresh of orders and activities that began once the first sync had stored everything: the
    // simulator changes nothing unless asked, so the mirror is what such a refresh would have left.
    const deepStart = new Date().toISOString();
    for (const stream of ['orders', 'activities'] as const) completeDeepRefresh(db, stream, { startedAt: deepStart, removed: 0 }, deepStart);
    const after = (iso: string, hours: number) => new Date(Date.parse(iso) + hours * HOUR_MS).toISOString();
    const lastRefreshAt = (stream: StreamName) => db.prepare('SELECT last_refresh_at FROM sync_state WHERE stream = ?').pluck().get(stream) as string;

    // Late voids and approvals, each with its transaction, which a sync of transactions stores; the signals
    // they raised are lost: the sync should have brought those activities, and did not.
    const signalledLate = sim.changeOldRecords({ void: { count: 2, minAgeDays: 60 }, approve: { count: 2, minAgeDays: 45 } });
    await syncMirror(sim, db, path, ['transactions']);
    db.prepare('DELETE FROM activity_signals').run();
    // After the deep refresh began: refunds of old orders (only a deep refresh reads them) and of recent ones
    // (the refresh reads them), approvals of old and recent activities whose transactions no sync has stored.
    const old = sim.changeOldRecords({ refund: { count: 3, minAgeDays: 60 }, approve: { count: 2, minAgeDays: 45 } });
    const recent = sim.changeOldRecords({ refund: { count: 2, minAgeDays: 2, maxAgeDays: 20 }, approve: { count: 2, minAgeDays: 2, maxAgeDays: 20 } });
    // And an hour of a live program: rows the next sync reads as new.
    sim.tick(1);

    // A refund the mirror lacks although it was made before the deep refresh began: the deep refresh missed it.
    const missedRefund = db
      .prepare(`SELECT id FROM orders WHERE created_at < ? AND refund_status <> 'not_refunded' AND id NOT IN (${old.refunded.join(',')}) ORDER BY id LIMIT 1`)
      .pluck()
      .get(new Date(Date.parse(old.clock) - 60 * DAY_MS).toISOString()) as number;
    db.prepare(
      `UPDATE orders SET refund_status = 'not_refunded', total_refunded = '0.00', updated_at = created_at,
         raw = json_set(raw, '$.refund_status', 'not_refunded', '$.total_refunded', '0.00', '$.updated_at', created_at) WHERE id = ?`,
    ).run(missedRefund);
    // An old order refunded after the deep refresh began, whose mirror copy claims the API's updated_at with
    // other values: not a change still to come, a wrong copy.
    const [wrongCopy, ...refundedAfter] = old.refunded;
    const truthOf = (id: number) => (sim!.truth('orders') as Array<{ id: number }>).find((order) => order.id === id)!;
    db.prepare("UPDATE orders SET raw = json_set(?, '$.total_refunded', '-1.00') WHERE id = ?").run(JSON.stringify(truthOf(wrongCopy)), wrongCopy);
    // Two voided activities the mirror still holds approved, though the void's transaction is stored (and was
    // before the deep refresh began): one the sync lost track of, one it has queued for its next pass.
    const [lostVoid, signalledVoid] = db
      .prepare("SELECT a.id FROM activities a JOIN transactions t ON t.activity_id = a.id WHERE t.activity_state = 'void' AND a.state = 'void' ORDER BY a.id LIMIT 2")
      .pluck()
      .all() as number[];
    db.prepare(`UPDATE activities SET state = 'approved', raw = json_set(raw, '$.state', 'approved') WHERE id IN (?, ?)`).run(lostVoid, signalledVoid);
    db.prepare('INSERT INTO activity_signals (activity_id, created_at, signalled_seq) SELECT id, created_at, 1 FROM activities WHERE id = ?').run(signalledVoid);

    const found = await verifyCli(sim, path, ['--full', ...JUDGED]);
    expect(found.code, found.stderr).toBe(1);
    const [orders, activities] = found.report!.streams;
    expect([orders.missing, orders.extra, sorted(orders.stale), orders.defects]).toEqual([[], [], sorted([missedRefund, wrongCopy]), 2]);
    const lostSignals = sorted([lostVoid, ...signalledLate.voided, ...signalledLate.approved]);
    expect([activities.missing, activities.extra, sorted(activities.stale), activities.defects]).toEqual([[], [], lostSignals, lostSignals.length]);
    // Changes after the deep refresh began wait for the next one (due a day after it began), or for the
    // next refresh when the record is recent (due a day after the last one); a signalled one for the next sync.
    for (const id of refundedAfter) expect(pendingRow(orders, id)).toEqual({ id, kind: 'stale', pass: 'next deep refresh', due: after(deepStart, 24) });
    for (const id of old.approved) expect(pendingRow(activities, id)).toEqual({ id, kind: 'stale', pass: 'next deep refresh', due: after(deepStart, 24) });
    for (const id of recent.refunded) expect(pendingRow(orders, id)).toEqual({ id, kind: 'stale', pass: 'next refresh', due: after(lastRefreshAt('orders'), 24) });
    for (const id of recent.approved) expect(pendingRow(activities, id)).toEqual({ id, kind: 'stale', pass: 'next refresh', due: after(lastRefreshAt('activities'), 24) });
    expect(pendingRow(activities, signalledVoid)).toEqual({ id: signalledVoid, kind: 'stale', pass: 'next sync', due: null });
    // Every other difference is pending too: the rows of the live hour.
    for (const [result, stream] of [
      [orders, 'orders'],
      [activities, 'activities'],
    ] as const) {
      expect(sorted([...result.pending.rows.map((row) => row.id), ...result.stale]), stream).toEqual(differingIds(db, sim, stream));
      expect(result.pending.rows.some((row) => row.pass === 'next sync' && row.kind === 'missing'), stream).toBe(true);
      expect(result.unsynced).toBe(result.pending.rows.filter((row) => row.pass === 'next sync').length);
    }

    // Three days on with no refresh and no deep refresh: nothing is coming for those changes any more.
    const config = testConfig(sim, path);
    const { logger } = recordingLogger('warn');
    const client = testClient(config, logger);
    const later = await runVerify({ db, client, config, logger, streams: ['orders', 'activities'], mode: 'full', requests: 0, repair: false, clock: () => new Date(Date.now() + 3 * DAY_MS) });
    expect(later.ok).toBe(false);
    expect(later.streams[0].stale).toEqual(expect.arrayContaining([...old.refunded, ...recent.refunded]));
    expect(later.streams[1].stale).toEqual(expect.arrayContaining([...old.approved, ...recent.approved]));
    expect(later.streams.flatMap((result) => result.pending.rows).every((row) => row.pass === 'next sync')).toBe(true);

    const repaired = await verifyCli(sim, path, ['--full', '--repair', ...JUDGED]);
    expect(repaired.code, repaired.stderr).toBe(0);
    // Its metrics (read from the mirror at a process's start) show what it left: no defect, and of the pending
    // rows only those the next sync reads as new.
    expect(lastVerifyFact(db)?.streams).toEqual(repaired.report!.streams.map((result) => ({ stream: result.stream, pending: result.unsynced, defect: 0 })));
    expect(repaired.report!.streams.map((result) => result.defects > 0)).toEqual([true, true]);
    const again = await verifyCli(sim, path, ['--full', ...JUDGED]);
    expect(again.code).toBe(0);
    // What remains is only what the next sync reads as new: a repair stores nothing ahead of its watermark.
    for (const result of again.report!.streams) expect([result.defects, result.pending.rows.every((row) => row.pass === 'next sync')]).toEqual([0, true]);
    expect((await runSync({ db, client, config, logger, streams: STREAMS })).ok).toBe(true);
    expect(mirrorDiffAll(db, sim, STREAMS)).toEqual([]);
    await client.close();
    db.close();
  });
});
