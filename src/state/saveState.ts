import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import type { Db } from '../db/open.js';
import { DUMPS_FOLDER } from './retention.js';
import type { MirrorFile } from './mirrorFile.js';
import { closeEpoch, forgetChangesThrough } from './changeTracking.js';
import type { StoredDump, StoredSegment } from './dumpFormat.js';
import type { StateManifest } from './leaseLog.js';
import { planSave, segmentsAfter, type SavePlan } from './planSave.js';
import type { StateStore } from './store/stateStore.js';
import { writeDump } from './writeDump.js';

export interface PreparedSave {
  manifest: StateManifest;
  plan: SavePlan;
  /** The dump this save uploaded. */
  written: StoredDump;
  /** Once the entry naming `manifest` is written: what the mirror may forget. */
  afterCommit: (db: Db) => void;
}

/** The schema version of a mirror: its highest applied migration. */
export function schemaVersionOf(db: Db): number {
  return (db.prepare('SELECT COALESCE(MAX(version), 0) AS version FROM schema_migrations').get() as { version: number }).version;
}

/**
 * Closes the epoch, dumps what the plan asks for as of that instant and uploads it under a name of
 * its own. Nothing names the dump yet: the caller commits the returned manifest with a log entry,
 * and a save fenced off there leaves only an unnamed object behind.
 */
export async function prepareSave(db: Db, mirror: MirrorFile, objects: StateStore, previous: StateManifest | null, stateId: string = randomUUID()): Promise<PreparedSave> {
  const dbPath = mirror.path;
  const plan = planSave(previous, schemaVersionOf(db));
  const epoch = closeEpoch(db);
  // The reader's snapshot begins now, before this process writes anything more: the dump is the mirror as the epoch closed.
  let reader: Database.Database;
  try {
    reader = new Database(dbPath, { readonly: true, fileMustExist: true });
  } catch (error) {
    // The path lost its file between the writer's check and this open: say so in the mirror's own sentence.
    mirror.check();
    throw error;
  }
  const work = mkdtempSync(join(dirname(dbPath), '.state-save-'));
  try {
    reader.prepare('BEGIN').run();
    reader.prepare('SELECT epoch FROM state_epoch').get();
    // The reader opened the file by its name: it must be the file the writer writes, or the dump is another mirror's.
    mirror.check();
    const file = join(work, 'dump.jsonl.zst');
    const range = plan.kind === 'base' ? ({ kind: 'base', epoch } as const) : ({ kind: 'segment', fromEpoch: plan.fromEpoch, epoch } as const);
    const dumped = await writeDump(reader, range, file);
    reader.prepare('COMMIT').run();
    const path = `${DUMPS_FOLDER}${String(epoch).padStart(12, '0')}-${plan.kind}-${randomUUID().slice(0, 8)}.jsonl.zst`;
    await objects.upload(path, file, { bytes: dumped.bytes, sha256: dumped.sha256 });
    const written: StoredDump = { path, bytes: dumped.bytes, sha256: dumped.sha256, rows: dumped.rows, epoch };
    const base = plan.kind === 'base' ? written : previous!.base;
    const segments: StoredSegment[] = plan.kind === 'base' ? [] : segmentsAfter(previous!.segments, plan, { ...written, fromEpoch: plan.fromEpoch, level: plan.level });
    const manifest: StateManifest = {
      // A first save takes the id of the state's record.
      stateId: previous?.stateId ?? stateId,
      epoch,
      savedAt: new Date().toISOString(),
      schemaVersion: schemaVersionOf(db),
      base,
      segments,
      // With its write-ahead log: what a copy of the mirror takes, whether or not SQLite has checkpointed.
      mirrorBytes: statSync(dbPath).size + (statSync(`${dbPath}-wal`, { throwIfNoEntry: false })?.size ?? 0),
    };
    return {
      manifest,
      plan,
      written,
      afterCommit: (writer) => {
        if (plan.kind === 'base') forgetChangesThrough(writer, epoch);
      },
    };
  } finally {
    if (reader.inTransaction) reader.prepare('ROLLBACK').run();
    reader.close();
    rmSync(work, { recursive: true, force: true });
  }
}
