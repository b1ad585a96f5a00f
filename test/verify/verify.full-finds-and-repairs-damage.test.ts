import { sentences } from '../helpers/cli.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runSync } from '../../src/sync/index.js';
import { freshMirror } from '../helpers/tempDir.js';
import { mirrorDiffAll, recordingLogger, testClient, testConfig } from '../helpers/sync.js';
import { idsWhere, namedIds, verifyCli } from './helpers.js';

let sim: SimulatorHandle | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe('verify --full on a damaged mirror', () => {
  it('names exactly the damaged ids, repairs them through the sync path, and leaves the next sync working', async () => {
    sim = await startSimulator({ seed: 5, size: 'small' });
    const { db, path } = freshMirror();
    const config = testConfig(sim, path);
    const { logger } = recordingLogger();
    const client = testClient(config, logger);
    expect((await runSync({ db, client, config, logger })).ok).toBe(true);
    const realMaxTransaction = db.prepare('SELECT max(id) FROM transactions').pluck().get() as number;
    const seqBefore = db.prepare('SELECT value FROM change_counter').pluck().get() as number;

    // A lost page: a contiguous block of 60 transactions.
    const lostBlock = idsWhere(db, 'transactions', 'id >= (SELECT min(id) + 100 FROM transactions)').slice(0, 60);
    db.prepare(`DELETE FROM transactions WHERE id IN (${lostBlock.join(',')})`).run();
    // Scattered rows.
    const scattered = idsWhere(db, 'orders', 'id % 97 = 0');
    db.prepare(`DELETE FROM orders WHERE id IN (${scattered.join(',')})`).run();
    // raw and the typed columns altered together.
    // (Customers updated within the sync's overlap would count as changed since the sync: older ones are damaged.)
    const alteredCustomers = idsWhere(db, 'customers', 'id IN (SELECT id FROM customers ORDER BY updated_at LIMIT 4)');
    db.prepare(`UPDATE customers SET email = 'damaged@example.org', raw = json_set(raw, '$.email', 'damaged@example.org') WHERE id IN (${alteredCustomers.join(',')})`).run();
    const alteredActivity = idsWhere(db, 'activities', "state = 'approved'").slice(5, 6);
    db.prepare(`UPDATE activities SET value = value + 1000, raw = json_set(raw, '$.value', value + 1000) WHERE id = ?`).run(alteredActivity[0]);
    const alteredTransaction = lostBlock[0] + 200;
    db.prepare('UPDATE transactions SET points_approved = 999999, raw = json_set(raw, \'$.points_approved\', 999999) WHERE id = ?').run(alteredTransaction);
    // Rows the API never had: one above the maximum, one below the minimum, an unsubscribe long gone.
    const aboveMax = realMaxTransaction + 100_000;
    const belowMin = (db.prepare('SELECT min(id) FROM transactions').pluck().get() as number) - 1;
    // Each a copy of its neighbour under a new id, as a replayed or foreign page would leave it.
    for (const [id, copied] of [
      [aboveMax, realMaxTransaction],
      [belowMin, belowMin + 1],
    ]) {
      db.prepare(
        `INSERT INTO transactions (id, customer_id, points_approved, created_at, raw, _synced_at, _change_seq)
         SELECT ?, customer_id, points_approved, created_at, json_set(raw, '$.id', ?), _synced_at, _change_seq FROM transactions WHERE id = ?`,
      ).run(id, id, copied);
    }
    // A customer from the future: the updated_at watermark would jump past every real change.
    const futureCustomer = (db.prepare('SELECT max(id) FROM customers').pluck().get() as number) + 100_000;
    const realCustomerWatermark = db.prepare("SELECT watermark FROM sync_state WHERE stream = 'customers'").pluck().get() as string;
    db.prepare(
      `INSERT INTO customers (id, email, updated_at, raw, _synced_at, _change_seq)
       SELECT ?, email, '2030-01-01T00:00:00.000Z', json_set(raw, '$.id', ?, '$.updated_at', '2030-01-01T00:00:00.000Z'), _synced_at, _change_seq
       FROM customers ORDER BY id LIMIT 1`,
    ).run(futureCustomer, futureCustomer);
    db.prepare("UPDATE sync_state SET watermark = '2030-01-01T00:00:00.000Z' WHERE stream = 'customers'").run();
    const ghost = 'f00dfeedf00dfeedf00dfeed';
    db.prepare(
      `INSERT INTO unsubscribes (id, email, first_seen_at, last_seen_at, raw, _synced_at, _change_seq)
       VALUES (?, 'ghost@example.org', '2020-01-01T00:00:00.000Z', '2020-01-01T00:00:00.000Z', ?, '2020-01-01T00:00:00.000Z', 1)`,
    ).run(ghost, JSON.stringify({ email: 'ghost@example.org', id: ghost }));
    // The sync had stored the extra above the maximum as its watermark.
    db.prepare("UPDATE sync_state SET watermark = ? WHERE stream = 'transactions'").run(String(aboveMax));

    const found = await verifyCli(sim, path, ['--full']);
    expect(found.code).toBe(1);
    expect(sentences(found.stderr)).toBe('');
    expect(found.report?.ok).toBe(false);
    expect(namedIds(found.report!)).toEqual({
      customers: { missing: [], extra: [futureCustomer], stale: alteredCustomers },
      orders: { missing: scattered, extra: [], stale: [] },
      activities: { missing: [], extra: [], stale: alteredActivity },
      transactions: { missing: lostBlock, extra: [belowMin, aboveMax], stale: [alteredTransaction] },
      unsubscribes: { missing: [], extra: [ghost], stale: [] },
    });
    expect(found.report!.streams.map((s) => s.unsynced)).toEqual([0, 0, 0, 0, 0]);
    expect(found.report!.streams.find((s) => s.stream === 'transactions')?.compared).toBe(sim.truth('transactions').length);

    const repaired = await verifyCli(sim, path, ['--full', '--repair']);
    expect(repaired.code).toBe(0);
    expect(repaired.report?.ok).toBe(true);
    expect(Object.fromEntries(repaired.report!.streams.map((s) => [s.stream, s.repaired]))).toEqual({
      customers: { inserted: 0, updated: alteredCustomers.length, removed: 1 },
      orders: { inserted: scattered.length, updated: 0, removed: 0 },
      activities: { inserted: 0, updated: 1, removed: 0 },
      transactions: { inserted: lostBlock.length, updated: 1, removed: 2 },
      unsubscribes: { inserted: 0, updated: 0, removed: 1 },
    });
    // Equal to the simulator's truth, the extras kept and marked, every repaired row marked changed for exports.
    expect(mirrorDiffAll(db, sim)).toEqual([]);
    expect(db.prepare('SELECT id FROM transactions WHERE _removed_at IS NOT NULL ORDER BY id').pluck().all()).toEqual([belowMin, aboveMax]);
    expect(db.prepare('SELECT removed_at IS NOT NULL AND _removed_at IS NOT NULL FROM unsubscribes WHERE id = ?').pluck().get(ghost)).toBe(1);
    const unchangedSinceDamage = db
      .prepare(`SELECT count(*) FROM transactions WHERE id IN (${[...lostBlock, alteredTransaction, aboveMax, belowMin].join(',')}) AND _change_seq <= ?`)
      .pluck()
      .get(seqBefore);
    expect(unchangedSinceDamage).toBe(0);
    expect(db.prepare("SELECT watermark FROM sync_state WHERE stream = 'transactions'").pluck().get()).toBe(String(realMaxTransaction));
    expect(db.prepare("SELECT watermark FROM sync_state WHERE stream = 'customers'").pluck().get()).toBe(realCustomerWatermark);

    const again = await verifyCli(sim, path, ['--full']);
    expect(again.code).toBe(0);
    expect(again.report?.streams.every((s) => s.missing_count + s.extra_count + s.stale_count === 0)).toBe(true);

    // The next incremental sync starts from the real maximum (and the real newest updated_at), so it picks
    // up the rows added and the customers changed meanwhile.
    sim.tick(1);
    expect((await runSync({ db, client, config, logger })).ok).toBe(true);
    expect(db.prepare('SELECT max(id) FROM transactions WHERE _removed_at IS NULL').pluck().get()).toBeGreaterThan(realMaxTransaction);
    // (Orders and activities change inside their lookback windows, which only the daily refresh re-reads.)
    expect(mirrorDiffAll(db, sim, ['customers', 'transactions', 'unsubscribes'])).toEqual([]);
    await client.close();
    db.close();
  });
});
