import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { readLocalMark } from './changeTracking.js';
import type { StateManifest } from './leaseLog.js';

/**
 * Whether the mirror at `dbPath` already holds `manifest`'s state (or newer), read without writing to it:
 * a command without the lease (status, queue list) may then read it in place. A missing, foreign,
 * older or unreadable mirror is not current.
 */
export function mirrorHoldsState(dbPath: string, manifest: StateManifest): boolean {
  let db: Database.Database | null = null;
  try {
    db = new Database(dbPath, { readonly: true, fileMustExist: true });
    const mark = readLocalMark(db);
    return mark !== null && mark.stateId === manifest.stateId && mark.epoch >= manifest.epoch;
  } catch {
    return false;
  } finally {
    db?.close();
  }
}

/**
 * A folder of its own beside the mirror for a restored copy that a command without the lease reads:
 * the mirror itself may be a live process's, and is never renamed or replaced by such a command.
 * Returns the copy's path (not yet there) and how to remove the folder.
 */
export function readCopyFolder(dbPath: string): { path: string; remove: () => void } {
  mkdirSync(dirname(dbPath), { recursive: true, mode: 0o700 });
  const folder = mkdtempSync(join(dirname(dbPath), '.state-read-'));
  return { path: join(folder, basename(dbPath)), remove: () => rmSync(folder, { recursive: true, force: true }) };
}
