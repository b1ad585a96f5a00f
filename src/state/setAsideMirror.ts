import { existsSync, renameSync, rmSync } from 'node:fs';

/** How many set-aside mirrors are kept: `.replaced` and `.replaced.1` … `.replaced.N-1`; the oldest beyond goes. */
export const SET_ASIDE_KEPT = 3;

/** The name of the n-th newest set-aside copy of the mirror at `dbPath` (0 the newest). */
export function setAsidePath(dbPath: string, nth: number): string {
  return nth === 0 ? `${dbPath}.replaced` : `${dbPath}.replaced.${nth}`;
}

/**
 * Moves the mirror at `dbPath` (with its write-ahead log) aside as `.replaced`, kept rather than deleted:
 * it may hold what an interrupted run never saved. Older set-aside copies move one name along first, so
 * no rename ever lands on a copy still kept; only the oldest beyond SET_ASIDE_KEPT is deleted.
 */
export function setAsideMirror(dbPath: string): string {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${setAsidePath(dbPath, SET_ASIDE_KEPT - 1)}${suffix}`, { force: true });
  for (let nth = SET_ASIDE_KEPT - 2; nth >= 0; nth -= 1) {
    for (const suffix of ['', '-wal']) {
      const from = `${setAsidePath(dbPath, nth)}${suffix}`;
      if (existsSync(from)) renameSync(from, `${setAsidePath(dbPath, nth + 1)}${suffix}`);
    }
    rmSync(`${setAsidePath(dbPath, nth)}-shm`, { force: true });
  }
  for (const suffix of ['', '-wal']) if (existsSync(`${dbPath}${suffix}`)) renameSync(`${dbPath}${suffix}`, `${setAsidePath(dbPath, 0)}${suffix}`);
  rmSync(`${dbPath}-shm`, { force: true });
  return setAsidePath(dbPath, 0);
}
