import { randomUUID } from 'node:crypto';
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import type { BucketObjects } from '../bucket/objects.js';
import { StreamingUpload } from '../bucket/streamingUpload.js';
import type { Db } from '../db/open.js';
import { closeEpoch, forgetChangesThrough } from './changeTracking.js';
import type { StoredDump, StoredSegment } from './dumpFormat.js';
import type { StateManifest } from './leaseLog.js';
import { planSave, segmentsAfter, type SavePlan } from './planSave.js';
import { writeDump, type WrittenDump } from './writeDump.js';

/** Where the dumps live, relative to the state's prefix; each under a name of its own. */
export const DUMPS_FOLDER = 'state/dumps/';

/** A dump no manifest names is removed once this old: a restore of the manifest before has long finished. */
export const ORPHAN_AGE_MS = 60 * 60 * 1000;

/** The dumps under DUMPS_FOLDER that `manifest` does not name and that are older than ORPHAN_AGE_MS (an undated one is kept). */
export function orphanDumps(listed: ReadonlyArray<{ path: string; modifiedMs: number }>, manifest: StateManifest, nowMs: number): string[] {
  const named = new Set([manifest.base.path, ...manifest.segments.map((segment) => segment.path)]);
  return listed.filter((object) => !named.has(object.path) && object.modifiedMs > 0 && object.modifiedMs < nowMs - ORPHAN_AGE_MS).map((object) => object.path);
}

export interface PreparedSave {
  manifest: StateManifest;
  plan: SavePlan;
  /** The dump this save uploaded. */
  written: StoredDump;
  /** Once the entry naming `manifest` is written: what the mirror may forget, and the dumps no state names any more. */
  afterCommit: (db: Db) => void;
  superseded: string[];
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
export async function prepareSave(db: Db, dbPath: string, objects: BucketObjects, previous: StateManifest | null, partSizeBytes: number, stateId: string = randomUUID()): Promise<PreparedSave> {
  const plan = planSave(previous, schemaVersionOf(db));
  const epoch = closeEpoch(db);
  // The reader's snapshot begins now, before this process writes anything more: the dump is the mirror as the epoch closed.
  const reader = new Database(dbPath, { readonly: true });
  const work = mkdtempSync(join(dirname(dbPath), '.state-save-'));
  try {
    reader.prepare('BEGIN').run();
    reader.prepare('SELECT epoch FROM state_epoch').get();
    const file = join(work, 'dump.jsonl.zst');
    const range = plan.kind === 'base' ? ({ kind: 'base', epoch } as const) : ({ kind: 'segment', fromEpoch: plan.fromEpoch, epoch } as const);
    const dumped = await writeDump(reader, range, file);
    reader.prepare('COMMIT').run();
    const path = `${DUMPS_FOLDER}${String(epoch).padStart(12, '0')}-${plan.kind}-${randomUUID().slice(0, 8)}.jsonl.zst`;
    await upload(objects, path, file, dumped, partSizeBytes);
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
    const named = new Set([manifest.base.path, ...manifest.segments.map((segment) => segment.path)]);
    const superseded = previous === null ? [] : [previous.base.path, ...previous.segments.map((segment) => segment.path)].filter((p) => !named.has(p));
    return {
      manifest,
      plan,
      written,
      superseded,
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

/** Uploads the dump file in parts of the configured size (one PUT when it fits one), checked by the store. */
async function upload(objects: BucketObjects, path: string, file: string, dumped: WrittenDump, partSizeBytes: number): Promise<void> {
  const upload = new StreamingUpload(objects, path, 'zst', partSizeBytes);
  try {
    for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024 })) await upload.write(chunk as Buffer);
    await upload.finish({ bytes: dumped.bytes, sha256: dumped.sha256 });
  } catch (error) {
    await upload.abort().catch(() => undefined);
    throw error;
  }
}
