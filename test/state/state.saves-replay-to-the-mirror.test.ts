import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBucketClient } from '../../src/bucket/client.js';
import { bucketStateStore, type BucketStateStore } from '../../src/state/store/bucketStateStore.js';
import { openDatabase, type Db } from '../../src/db/open.js';
import { installChangeTracking, UNSAVED_TABLES } from '../../src/state/changeTracking.js';
import { LOG_FORMAT, type LogEntry, type StateManifest } from '../../src/state/leaseLog.js';
import { FANOUT } from '../../src/state/planSave.js';
import { restoreMirror } from '../../src/state/restoreMirror.js';
import { MirrorFile } from '../../src/state/mirrorFile.js';
import { prepareSave } from '../../src/state/saveState.js';
import { recordingLogger } from '../helpers/sync.js';
import { freshMirror, tempDir } from '../helpers/tempDir.js';
import { newBucket, storeClient, useAwsEnv } from '../s3/helpers.js';
import { seededRandom } from './stateStore.js';

/** Every saved table's rows with their rowids, in order: what a restore must give back, row for row. */
function contents(db: Db): Record<string, unknown[]> {
  const tables = (db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string; sql: string }>).filter(
    (table) => !UNSAVED_TABLES.has(table.name),
  );
  return Object.fromEntries(
    tables.map((table) => {
      const withoutRowid = table.name === 'sqlite_sequence' || /WITHOUT ROWID/i.test(table.sql);
      const rows = db.prepare(withoutRowid ? `SELECT * FROM "${table.name}" ORDER BY 1, 2` : `SELECT rowid AS _rowid, * FROM "${table.name}" ORDER BY rowid`).all();
      return [table.name, rows];
    }),
  );
}

describe('saves of what changed, replayed on their base', () => {
  const client = storeClient();
  let objects: BucketStateStore;

  beforeAll(async () => {
    useAwsEnv();
    const bucket = await newBucket(client);
    objects = bucketStateStore(createBucketClient({ endpoint: '', region: '', forcePathStyle: true, partSizeMiB: 5 }), { bucket, prefix: 'replay', url: `s3://${bucket}/replay` }, recordingLogger().logger, 5 * 1024 * 1024);
  });
  afterAll(() => client.destroy());

  it('restore the mirror exactly, row for row, after inserts, updates, deletes, whole tables, merged segments and a new base', async () => {
    const source = freshMirror();
    const db = source.db;
    installChangeTracking(db);
    const next = seededRandom(Number(process.env.REPLAY_SEED ?? 7));
    const pick = (n: number) => Math.floor(next() * n);
    let manifest: StateManifest | null = null;
    let seq = 0;
    const kinds: string[] = [];

    const change = (step: number) => {
      for (let i = 0; i < 6; i += 1) {
        const id = 1 + pick(40);
        switch (pick(6)) {
          case 0:
            db.prepare('INSERT OR REPLACE INTO customers (id, merchant_id, email, points_approved, raw, _synced_at, _change_seq) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
              id, `m-${id}`, `c${id}.${step}@example.com`, pick(1000) * 2 ** 40, JSON.stringify({ id, step, text: 'Zoë "Zee"\nO\'Brien' }), '2026-11-26T00:00:00Z', step,
            );
            break;
          case 1:
            db.prepare('DELETE FROM customers WHERE id = ?').run(id);
            break;
          case 2:
            db.prepare(
              "INSERT INTO write_jobs (kind, payload, idempotency_key, ordering_key, next_attempt_at, source, created_at, updated_at) VALUES ('add_points', ?, ?, 'c', 'now', 'test', 'now', 'now')",
            ).run(JSON.stringify({ points: id }), `key-${step}-${i}`);
            break;
          case 3:
            db.prepare("UPDATE write_jobs SET state = 'succeeded', attempts = attempts + 1 WHERE id = (SELECT id FROM write_jobs ORDER BY random() LIMIT 1)").run();
            break;
          case 4:
            // A table without rowids travels whole.
            if (next() < 0.5) db.prepare('INSERT OR IGNORE INTO deep_refresh_absent (stream, id) VALUES (?, ?)').run('orders', id);
            else db.prepare('DELETE FROM deep_refresh_absent WHERE id = ?').run(id);
            break;
          default:
            // An AUTOINCREMENT table: sqlite_sequence must come back too, or deleted ids would be handed out again.
            db.prepare("INSERT INTO sync_runs (run_id, stream, started_at, status) VALUES ('r', 'customers', ?, 'succeeded')").run(`2026-11-26T00:00:${String(step % 60).padStart(2, '0')}Z`);
            if (next() < 0.3) db.prepare('DELETE FROM sync_runs WHERE id = (SELECT MAX(id) FROM sync_runs)').run();
        }
      }
    };

    const restoredEqualsSource = async () => {
      const target = join(tempDir(), 'restored.db');
      const entry: LogEntry & { manifest: StateManifest } = { format: LOG_FORMAT, seq, kind: 'save', writeId: 'w', holder: { id: 'h', host: 'h', pid: 1, command: 'test' }, leaseUntil: '', writtenAt: '', manifest: manifest! };
      await restoreMirror(objects, entry, 's3://x/replay', target, recordingLogger().logger);
      const restored = openDatabase(target, { mustExist: true });
      try {
        const [got, want] = [contents(restored), contents(db)];
        const differing = Object.keys(want).filter((table) => JSON.stringify(got[table]) !== JSON.stringify(want[table]));
        expect(differing, differing.map((table) => `${table}: restored ${JSON.stringify(got[table]).slice(0, 400)} source ${JSON.stringify(want[table]).slice(0, 400)}`).join('\n')).toEqual([]);
        expect(got).toEqual(want);
      } finally {
        restored.close();
      }
    };

    const saves = FANOUT * 2 + 3;
    // A base large beside a save's changes, as a real mirror is, so segments pile up and merge before a new base.
    const seed = db.prepare('INSERT INTO customers (id, merchant_id, email, raw, _synced_at, _change_seq) VALUES (?, ?, ?, ?, ?, 1)');
    db.transaction(() => {
      for (let id = 1000; id < 4000; id += 1) seed.run(id, `m-${id}`, `c${id}@example.com`, JSON.stringify({ id, filler: 'x'.repeat(200 + (id % 97)) }), '2026-11-01T00:00:00Z');
    })();
    const checked = new Set([1, FANOUT, FANOUT + 1, saves]);
    for (let step = 1; step <= saves; step += 1) {
      change(step);
      const saving = prepareSave(db, MirrorFile.at(source.path), objects, manifest);
      // Changes made while a save uploads belong to the next save (not made before a save whose restore is compared).
      if (!checked.has(step)) change(step + 1000);
      const prepared = await saving;
      prepared.afterCommit(db);
      manifest = prepared.manifest;
      seq += 1;
      kinds.push(prepared.plan.kind === 'base' ? 'base' : `L${prepared.plan.level}`);
      if (checked.has(step)) await restoredEqualsSource().catch((error: unknown) => Promise.reject(new Error(`after saves ${kinds.join(' ')}: ${String(error)}`)));
    }
    // The plan merged segments on the way: a level-1 segment replaced FANOUT level-0 ones.
    expect(kinds).toContain('L1');
    expect(manifest!.segments.length).toBeLessThan(FANOUT);

    // A change of most rows: its segment outgrows half the base, so the save after it writes a new base.
    db.prepare("UPDATE customers SET email = 'moved.' || email").run();
    for (let round = 0; round < 2; round += 1) {
      change(5000 + round);
      const prepared = await prepareSave(db, MirrorFile.at(source.path), objects, manifest);
      prepared.afterCommit(db);
      manifest = prepared.manifest;
      seq += 1;
      kinds.push(prepared.plan.kind === 'base' ? 'base' : `L${prepared.plan.level}`);
    }
    expect(kinds.slice(-2)).toEqual(['L0', 'base']);
    expect(manifest!.segments).toEqual([]);
    await restoredEqualsSource();
    // A new base makes the markers before it needless.
    expect(db.prepare('SELECT count(*) AS n FROM state_changes WHERE epoch <= ?').get(manifest!.epoch)).toEqual({ n: 0 });
    db.close();
  });

  it('keep a table without rowids emptied by one segment empty after a merge made on a mirror restored from that segment', async () => {
    const source = freshMirror();
    installChangeTracking(source.db);
    // A base large beside the segments (whose headers alone are a kilobyte), so that they merge before a new base.
    const seed = source.db.prepare('INSERT INTO customers (id, merchant_id, email, raw, _synced_at, _change_seq) VALUES (?, ?, ?, ?, ?, 1)');
    source.db.transaction(() => {
      for (let id = 1; id < 2000; id += 1) seed.run(id, `m-${id}`, `c${id}@example.com`, JSON.stringify({ id, filler: createHash('sha256').update(String(id)).digest('hex') }), '2026-11-01T00:00:00Z');
    })();
    source.db.prepare("INSERT INTO deep_refresh_absent (stream, id) VALUES ('orders', 7)").run();
    const save = async (db: Db, path: string, previous: StateManifest | null): Promise<StateManifest> => {
      const prepared = await prepareSave(db, MirrorFile.at(path), objects, previous);
      prepared.afterCommit(db);
      return prepared.manifest;
    };
    const restore = async (manifest: StateManifest): Promise<string> => {
      const target = join(tempDir(), 'mirror.db');
      const entry: LogEntry & { manifest: StateManifest } = { format: LOG_FORMAT, seq: 1, kind: 'save', writeId: 'w', holder: { id: 'h', host: 'h', pid: 1, command: 'test' }, leaseUntil: '', writtenAt: '', manifest };
      await restoreMirror(objects, entry, 's3://x/replay', target, recordingLogger().logger);
      return target;
    };
    let manifest = await save(source.db, source.path, null);
    // A deep refresh completes: the table is emptied, and the segment that says so carries no row of it.
    source.db.prepare('DELETE FROM deep_refresh_absent').run();
    manifest = await save(source.db, source.path, manifest);
    source.db.close();

    // The next job restores in a fresh folder, and its saves merge that segment with its own.
    const restoredPath = await restore(manifest);
    const restored = openDatabase(restoredPath, { mustExist: true });
    installChangeTracking(restored);
    for (let step = 0; step < FANOUT - 1; step += 1) {
      restored.prepare('UPDATE customers SET email = ? WHERE id = ?').run(`moved.${step}@example.com`, step + 1);
      manifest = await save(restored, restoredPath, manifest);
    }
    expect(manifest.segments.map((segment) => segment.level)).toEqual([1]);
    restored.close();

    const again = openDatabase(await restore(manifest), { mustExist: true });
    try {
      expect(again.prepare('SELECT stream, id FROM deep_refresh_absent').all()).toEqual([]);
    } finally {
      again.close();
    }
  });
});
