import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import type { Logger } from '../log.js';
import { applyDump } from './applyDump.js';
import { createStateTables, writeLocalMark } from './changeTracking.js';
import type { StoredDump } from './dumpFormat.js';
import { DumpMissingError, StateError } from './errors.js';
import type { LogEntry, StateManifest } from './leaseLog.js';
import type { StateStore } from './store/stateStore.js';

export interface RestoreReport {
  /** Compressed bytes fetched from the bucket. */
  bytes: number;
  rows: number;
  dumps: number;
  seconds: number;
}

/**
 * Builds the mirror at `dbPath` from the state of `entry`: its base, then each segment in order,
 * into a file beside the mirror that replaces it only once complete, so a restore killed midway
 * leaves no half mirror for the next run to take for whole.
 */
export async function restoreMirror(objects: StateStore, entry: LogEntry & { manifest: StateManifest }, url: string, dbPath: string, logger: Logger): Promise<RestoreReport> {
  const started = performance.now();
  const manifest = entry.manifest;
  const work = mkdtempSync(join(dirname(dbPath), '.state-restore-'));
  const building = join(work, 'mirror.db');
  let bytes = 0;
  let rows = 0;
  try {
    const db = new Database(building);
    try {
      db.pragma('page_size = 16384');
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = OFF');
      // Rows come table by table and a segment replaces rows in place: only the end state holds every reference.
      db.pragma('foreign_keys = OFF');
      const dumps: Array<{ dump: StoredDump; kind: 'base' | 'segment' }> = [{ dump: manifest.base, kind: 'base' }, ...manifest.segments.map((dump) => ({ dump, kind: 'segment' as const }))];
      for (const [index, { dump, kind }] of dumps.entries()) {
        const file = join(work, `dump-${index}.zst`);
        const fetched = await objects.download(dump.path, file);
        if (fetched === null) throw new DumpMissingError(`The state's ${kind} ${objects.where(dump.path)} is missing from ${objects.label}; the state cannot be restored (was it deleted by hand or by a lifecycle rule?).`);
        if (fetched.sha256 !== dump.sha256) throw new StateError(`The state's ${kind} ${objects.where(dump.path)} in ${objects.label} has SHA-256 ${fetched.sha256}; its manifest says ${dump.sha256}.`);
        bytes += fetched.bytes;
        rows += await applyDump(db, file, { kind, epoch: dump.epoch, name: `${kind} ${dump.path}` });
        if (kind === 'base') createStateTables(db);
        rmSync(file, { force: true });
      }
      // Changes from here on belong to the epoch after the saved one.
      db.prepare('UPDATE state_epoch SET epoch = ?').run(manifest.epoch + 1);
      writeLocalMark(db, { url, stateId: manifest.stateId, epoch: manifest.epoch, seq: entry.seq });
      db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      db.close();
    }
    for (const suffix of ['-wal', '-shm']) rmSync(`${dbPath}${suffix}`, { force: true });
    renameSync(building, dbPath);
    const seconds = (performance.now() - started) / 1000;
    logger.info({ state: url, bytes, rows, dumps: 1 + manifest.segments.length, seconds: Number(seconds.toFixed(2)) }, 'restored the mirror from the bucket');
    return { bytes, rows, dumps: 1 + manifest.segments.length, seconds };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
