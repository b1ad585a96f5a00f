import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/db/open.js';
import { applyDump } from '../../src/state/applyDump.js';
import { closeEpoch, createStateTables, forgetChangesThrough, installChangeTracking } from '../../src/state/changeTracking.js';
import { writeDump, type DumpRange } from '../../src/state/writeDump.js';
import { freshMirror, tempDir } from '../helpers/tempDir.js';

const insertJob = `INSERT INTO write_jobs (kind, payload, idempotency_key, ordering_key, next_attempt_at, source, created_at, updated_at)
  VALUES ('add_points', '{}', ?, 'c-1', '2026-03-01T00:00:00Z', 'test', '2026-03-01T00:00:00Z', '2026-03-01T00:00:00Z')`;

/** Dumps `range` as prepareSave does: from a read-only connection holding one snapshot, begun after the epoch closed. */
async function dump(path: string, range: DumpRange, file: string): Promise<void> {
  const reader = new Database(path, { readonly: true });
  try {
    reader.prepare('BEGIN').run();
    await writeDump(reader, range, file);
    reader.prepare('COMMIT').run();
  } finally {
    reader.close();
  }
}

/** A table with rowids, marked per row, and one without, marked and shipped whole. */
function rows(db: Db): { jobs: unknown[]; absent: unknown[] } {
  return {
    jobs: db.prepare('SELECT id, state, attempts FROM write_jobs ORDER BY id').all(),
    absent: db.prepare('SELECT stream, id FROM deep_refresh_absent ORDER BY stream, id').all(),
  };
}

describe('a segment of the state', () => {
  it('holds rows another connection changed after the epoch closed and before the dump began, as the dump read them', async () => {
    const { db: writer, path } = freshMirror();
    installChangeTracking(writer);
    writer.prepare(insertJob).run('key-1');
    writer.prepare(insertJob).run('key-2');
    const work = tempDir();
    const baseFile = join(work, 'base.zst');
    const baseEpoch = closeEpoch(writer);
    await dump(path, { kind: 'base', epoch: baseEpoch }, baseFile);
    forgetChangesThrough(writer, baseEpoch);

    writer.prepare("UPDATE write_jobs SET state = 'running' WHERE id = 1").run();
    writer.prepare("INSERT INTO deep_refresh_absent (stream, id) VALUES ('orders', 7)").run();
    const epoch = closeEpoch(writer);
    // The sync's storage thread, say, commits on its own connection while the save is between its close and its snapshot.
    const other = openDatabase(path, { mustExist: true });
    other.prepare("UPDATE write_jobs SET state = 'succeeded', attempts = 1 WHERE id = 1").run();
    other.prepare("INSERT INTO deep_refresh_absent (stream, id) VALUES ('orders', 8)").run();
    other.close();
    const segmentFile = join(work, 'segment.zst');
    await dump(path, { kind: 'segment', fromEpoch: baseEpoch, epoch }, segmentFile);

    const restored = new Database(join(work, 'restored.db'));
    try {
      await applyDump(restored, baseFile, { kind: 'base', epoch: baseEpoch, name: 'base' });
      createStateTables(restored);
      await applyDump(restored, segmentFile, { kind: 'segment', epoch, name: 'segment' });
      expect(rows(restored)).toEqual(rows(writer));
      expect(rows(restored)).toEqual({
        jobs: [
          { id: 1, state: 'succeeded', attempts: 1 },
          { id: 2, state: 'queued', attempts: 0 },
        ],
        absent: [
          { stream: 'orders', id: 7 },
          { stream: 'orders', id: 8 },
        ],
      });
    } finally {
      restored.close();
      writer.close();
    }
  });
});
