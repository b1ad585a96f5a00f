import { join, resolve, sep } from 'node:path';
import { STREAM_NAMES, type Config, type ExportFormat } from '../config.js';
import type { Db } from '../db/open.js';
import { MANIFEST_DIR } from './layout.js';
import { parseBucketPlace } from '../bucket/place.js';

/**
 * Where a run's files landed, as the daily export and `status --check` tell runs apart: a bucket target
 * (`s3://BUCKET/PREFIX`, each one its own place), or the export folder.
 */
export type ExportPlace = { where: 'bucket'; url: string } | { where: 'local'; dir: string };

/** The place a plain `export`, `once` and `run` deliver to: export.url's bucket when set, else export.dir. */
export function configuredPlace(config: Readonly<Pick<Config, 'export'>>): ExportPlace {
  if (config.export.url === '') return { where: 'local', dir: resolve(config.export.dir) };
  return { where: 'bucket', url: parseBucketPlace(config.export.url, 'export.url').url };
}

/** The place in a sentence: the bucket's URL, or the export folder's path. */
export function describePlace(place: ExportPlace): string {
  return place.where === 'bucket' ? place.url : `the export folder ${place.dir}`;
}

export interface FullExport {
  runId: string;
  finishedAt: string;
}

/**
 * The newest succeeded full export that delivered every stream table in each of `formats` to `place`:
 * what a plain `export` or `once` writes there. A one-table, `--since-last` or CSV-only run (when Parquet
 * is configured too) is not one, nor a run that went to another bucket or prefix. Null when there is none.
 */
export function lastFullExport(db: Db, formats: readonly ExportFormat[], place: ExportPlace): FullExport | null {
  const row = db
    .prepare(
      `SELECT r.run_id AS runId, r.finished_at AS finishedAt
       FROM export_runs r
       WHERE r.status = 'succeeded' AND r.kind = 'full' AND ${landedAt(place)}
         AND (SELECT count(DISTINCT t.table_name) FROM export_run_tables t
              WHERE t.run_id = r.run_id AND t.table_name IN (SELECT value FROM json_each(@tables))) = @tableCount
         AND (SELECT count(*) FROM json_each(@formats) f WHERE instr(',' || r.formats || ',', ',' || f.value || ',') > 0) = @formatCount
       ORDER BY r.finished_at DESC, r.run_id DESC LIMIT 1`,
    )
    .get({ tables: JSON.stringify(STREAM_NAMES), tableCount: STREAM_NAMES.length, formats: JSON.stringify(formats), formatCount: formats.length, place: placeKey(place) }) as
    | FullExport
    | undefined;
  return row ?? null;
}

/**
 * Export runs aimed at `place` that failed or were interrupted, and the newest one's error. A run aimed
 * at a bucket is known by its publication; a run without one went to the export folder alone.
 */
export function failedExports(db: Db, place: ExportPlace): { count: number; error: string | null } {
  const aimed =
    place.where === 'bucket'
      ? 'EXISTS (SELECT 1 FROM export_publications p WHERE p.run_id = r.run_id AND p.target = @place)'
      : 'NOT EXISTS (SELECT 1 FROM export_publications p WHERE p.run_id = r.run_id)';
  const failed = `FROM export_runs r WHERE r.status IN ('failed', 'interrupted') AND ${aimed}`;
  return db
    .prepare(`SELECT count(*) AS count, (SELECT r.error ${failed} ORDER BY r.started_at DESC, r.run_id DESC LIMIT 1) AS error ${failed}`)
    .get({ place: placeKey(place) }) as { count: number; error: string | null };
}

/** Whether this mirror ever started an export, to any place. */
export function anyExportStarted(db: Db): boolean {
  return db.prepare('SELECT 1 FROM export_runs LIMIT 1').get() !== undefined;
}

/**
 * The SQL condition that run `r` landed at the place: published whole to that bucket and prefix, or its
 * manifest written in that export folder (the manifest is the run's last file there).
 */
function landedAt(place: ExportPlace): string {
  return place.where === 'bucket'
    ? `EXISTS (SELECT 1 FROM export_publications p WHERE p.run_id = r.run_id AND p.target = @place AND p.status = 'completed')`
    : `r.manifest_path = @place || r.run_id || '.json'`;
}

function placeKey(place: ExportPlace): string {
  return place.where === 'bucket' ? place.url : `${join(place.dir, MANIFEST_DIR)}${sep}`;
}

/** Whether two instants fall on the same calendar day in `timeZone` (an IANA name such as UTC or Europe/Paris). */
export function sameCalendarDay(a: Date, b: Date, timeZone: string): boolean {
  const day = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
  return day.format(a) === day.format(b);
}
