import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type Config, type ExportFormat, type SnapshotFormat } from '../config.js';
import type { Db } from '../db/open.js';
import { folderProblem } from '../folderProblem.js';
import type { Logger } from '../log.js';
import { toolVersion } from '../version.js';
import { MONEY_RULE } from './decimal.js';
import { baselines, completeRun, failRun, insertRun, isRunIdTaken, settleAbandonedRuns, type TableOutcome } from './exportRuns.js';
import { DIR_MODE, publish } from './fileSink.js';
import { newRunId, partitionDate } from './layout.js';
import { ExportFolder } from './insideExportFolder.js';
import { warnInvalidValues } from './invalidValues.js';
import { isProcessAlive, removeLeftovers } from './leftovers.js';
import { isCompleteRun, MANIFEST_VERSION, writeManifest, type Manifest, type ManifestDeltaTable, type ManifestFile, type ManifestTable } from './manifest.js';
import type { BucketPublisher } from './bucket/publisher.js';
import { completePublication, failPublication, publicationCompleted, startPublication } from './publications.js';
import { applyRetention } from './retention.js';
import { dropExpiredRunLocks, holdRunLock, isRunLive } from './runLock.js';
import { DEFAULT_EXPORT_TABLES, EXPORT_TABLES, tableSchema, type ExportTable } from './schema.js';
import { Snapshot } from './snapshot.js';
import { parseBucketPlace, type BucketPlace } from '../bucket/place.js';
import { writeTableFile, type PendingFile } from './writeTableFile.js';
import { DiskDeltaStore } from './delta/diskStore.js';
import { DELTA_DIR, exportDeltaTables, holdDeltaLock, type DeltaPlace } from './delta/exportDelta.js';
import { lastLedgerBuild } from '../ledger/balancesAsOf.js';
import type { HeldLock } from '../runtime/lock.js';
import type { OpsFacts } from '../metrics/facts.js';

export interface ExportOptions {
  /** The mirror (read-write: the run is recorded in export_runs). The snapshot is read on a second, read-only connection. */
  db: Db;
  config: Readonly<Config>;
  logger: Logger;
  /** Default: config.export.formats. */
  formats?: ExportFormat[];
  /** Default: the five streams and the model tables; write_jobs only when named. */
  tables?: ExportTable[];
  /** Only rows changed since the previous successful export of each table. */
  sinceLast?: boolean;
  /** Where to publish the run (`export --to`); default config.export.url, and none when that is empty. */
  target?: BucketPlace;
  /** The run's clock (run id and partition date); default now. */
  now?: Date;
  signal?: AbortSignal;
  /** Told how a publication to a bucket target ended; none by default. */
  facts?: Pick<OpsFacts, 'publicationEnded'>;
}

export interface ExportReport {
  runId: string;
  /** Absolute path of the run's manifest; its s3:// URL when only the bucket keeps the run (export.keepLocal false). */
  manifestPath: string;
  files: ManifestFile[];
  kind: 'full' | 'since_last';
  /** The Delta tables after the run, per place (empty without the delta format). */
  delta: ManifestDeltaTable[];
  /** Set when the run was published to object storage. */
  publication: { url: string; manifestUrl: string; files: number; bytes: number; keptLocal: boolean } | null;
}

/**
 * Writes one consistent snapshot of the mirror: every file of the run is read inside one read
 * transaction. Files are written under temporary names, renamed into place together once all are
 * complete, and the manifest is written last, so a loader that follows manifests never sees a
 * partial run. Leftovers of killed runs are removed first, old runs after (retention).
 *
 * With a target (s3://BUCKET/PREFIX) each file is uploaded in parts while it is written;
 * the bucket gets the manifest once every file is confirmed there, and only then does the run take
 * its local place (or leave no local copy, with export.keepLocal false). The run succeeds only when
 * it is published, so a failed publication is shipped again by the next `--since-last`.
 */
export async function runExport(options: ExportOptions): Promise<ExportReport> {
  const now = options.now ?? new Date();
  // Runs in the same second share the stamp; the suffix tells them apart, drawn again on the rare clash.
  let runId = newRunId(now);
  while (isRunIdTaken(options.db, runId)) runId = newRunId(now);
  const publishes = options.target !== undefined || options.config.export.url !== '';
  try {
    const report = await writeRun({ ...options, now }, runId);
    if (report.publication !== null) options.facts?.publicationEnded('completed', new Date());
    return report;
  } catch (error) {
    // Whatever stopped the run, before or after its first upload, the bucket did not get it.
    if (publishes && !publicationCompleted(options.db, runId)) options.facts?.publicationEnded('failed', new Date());
    throw error;
  }
}

/** The export folder, the run's lock, then the run itself. */
async function writeRun(options: ExportOptions & { now: Date }, runId: string): Promise<ExportReport> {
  const { db, config, now } = options;
  const logger = options.logger.child({ runId });
  const root = resolve(config.export.dir);
  if (db.memory || db.name === '') throw new Error('Export needs the mirror in a file, since the snapshot is read on a second connection.');

  await mkdir(root, { recursive: true, mode: DIR_MODE }).catch((error: NodeJS.ErrnoException) => {
    const problem = folderProblem(error.code) ?? error.code ?? error.message;
    throw new Error(`Cannot create the export folder ${root} (export.dir or LOYALTY_EXPORT_DIR): ${problem}; expected a folder this user may create and write.`, { cause: error });
  });
  const folder = await ExportFolder.open(root, logger);
  // Before the run writes anything: its lock is what tells a later export that its files are not leftovers.
  const runLock = await holdRunLock(db, runId, config.runtime.lockLeaseSeconds * 1000, logger);
  try {
    return await exportRun(options, { runId, logger, root, folder });
  } finally {
    runLock.release();
  }
}

interface RunContext {
  runId: string;
  /** Carries `{ runId }`. */
  logger: Logger;
  /** The export folder, absolute. */
  root: string;
  folder: ExportFolder;
}

/** The run itself, once it holds its lock: leftovers, files, publication, manifest, retention. */
async function exportRun(options: ExportOptions & { now: Date }, run: RunContext): Promise<ExportReport> {
  const { db, config, now } = options;
  const { runId, logger, root, folder } = run;
  const formats = unique(options.formats ?? config.export.formats);
  const fileFormats = formats.filter((format): format is SnapshotFormat => format !== 'delta');
  const wantsDelta = formats.includes('delta');
  const tables = unique(options.tables ?? [...DEFAULT_EXPORT_TABLES]);
  const date = partitionDate(now);
  const requestedKind = options.sinceLast ? 'since_last' : 'full';
  const target = options.target ?? (config.export.url === '' ? null : parseBucketPlace(config.export.url, 'export.url'));
  const keepLocal = target === null || config.export.keepLocal;
  const isLive = (otherRunId: string): boolean => isRunLive(db, otherRunId);
  const abandonedRunIds = settleAbandonedRuns(db, new Date().toISOString(), isLive);
  dropExpiredRunLocks(db, new Date());
  const cleaned = await removeLeftovers(folder, { tables: EXPORT_TABLES, currentRunId: runId, abandonedRunIds, isRunLive: isLive, isAlive: isProcessAlive });
  if (cleaned.length > 0) logger.info({ files: cleaned.length }, `removed ${cleaned.length} leftover file(s) of interrupted exports`);

  // The AWS SDK takes some 25 MB of memory once loaded: only an export that publishes loads it, so a
  // long-lived `run` without a bucket never holds it.
  const publisher: BucketPublisher | null = target === null ? null : (await import('./bucket/publisher.js')).BucketPublisher.create(config.export.s3, target, logger);
  // Before any file is written, so wrong credentials or a missing bucket cost nothing.
  try {
    await publisher?.removeLeftovers({ currentRunId: runId, abandonedRunIds, now: Date.now() });
  } catch (error) {
    publisher?.destroy();
    throw new Error(`Export ${runId} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }

  // Before the snapshot: one mirror's Delta commits then follow the order of their snapshots, so a table
  // never goes back to an older state, and two exports never plan from the same version.
  let deltaLock: HeldLock | null = null;
  let snapshot: Snapshot;
  try {
    deltaLock = wantsDelta ? await holdDeltaLock(db, config.runtime.lockLeaseSeconds * 1000, logger, options.signal) : null;
    snapshot = Snapshot.open(db.name);
  } catch (error) {
    deltaLock?.release();
    publisher?.destroy();
    throw error;
  }
  const pending: PendingFile[] = [];
  const published: string[] = [];
  let started = false;
  // Once a manifest may be visible, loaders may already be reading its files: they stay.
  let bucketManifestMayBeVisible = false;
  let localManifestWritten = false;
  let publicationCompleted = false;
  try {
    const schemas = tables.map((table) => tableSchema(snapshot.db, table));
    const previous = options.sinceLast ? baselines(db, tables, target?.url ?? null) : new Map();
    const kind = previous.size > 0 ? 'since_last' : 'full';
    const previousRunId = kind === 'since_last' ? newestRunId([...previous.values()].map((baseline) => baseline.runId)) : null;
    insertRun(db, { runId, kind, previousRunId, startedAt: now.toISOString(), formats });
    if (publisher) startPublication(db, runId, publisher.url, new Date().toISOString());
    started = true;

    const outcomes: TableOutcome[] = [];
    const listed: ManifestTable[] = [];
    for (const schema of schemas) {
      const baseline = schema.tracksChanges ? previous.get(schema.table) : undefined;
      const since = baseline ? baseline.maxChangeSeq : null;
      let rows = 0;
      for (const format of fileFormats) {
        options.signal?.throwIfAborted();
        await publisher?.waitForRoom(1);
        const copyTo = publisher === null ? undefined : (path: string, fileFormat: string) => publisher.startFile(path, fileFormat, options.signal);
        const file = await writeTableFile(snapshot, schema, format, { root, runId, date, since, sinceRunId: baseline?.runId ?? null, config, copyTo, signal: options.signal });
        pending.push(file);
        if (publisher && file.copy) publisher.enqueue(file.copy, file.entry);
        // The upload holds what it still needs in memory: without a local copy to keep, the file goes at once,
        // so the export's disk (a job's /tmp, memory on Cloud Run) holds one file at a time, not the whole run.
        if (!keepLocal) await rm(file.tmpPath, { force: true });
        publisher?.throwIfFailed();
        rows = file.entry.rows;
        logger.info({ table: schema.table, format, rows, bytes: file.entry.bytes }, `wrote ${file.entry.path}`);
        warnInvalidValues(logger, schema.table, file.entry.path, file.invalid);
      }
      outcomes.push({ table: schema.table, maxChangeSeq: schema.tracksChanges ? snapshot.maxChangeSeq(schema.table) : 0, sinceChangeSeq: since, rows });
      listed.push({ table: schema.table, kind: schema.kind, rows: fileFormats.length > 0 ? rows : snapshot.rowCount(schema.table) });
    }
    // A lock lost to another export (this one stalled past its lease) stops the commits: the other plans from the same version.
    const deltaSignal = deltaLock === null ? options.signal : options.signal ? AbortSignal.any([options.signal, deltaLock.lost]) : deltaLock.lost;
    const delta = wantsDelta ? await exportDeltaTables({ db, snapshot, schemas, places: deltaPlaces(root, keepLocal, publisher), runId, config, logger, signal: deltaSignal }) : undefined;
    const watermarks = snapshot.watermarks();
    const schemaDrift = snapshot.schemaDrift(schemas.map((schema) => schema.table));
    const changeSeq = snapshot.changeSeq;
    const ledger = schemas.some((schema) => schema.kind === 'model') ? lastLedgerBuild(snapshot.db) : undefined;
    snapshot.close();

    const manifest: Manifest = {
      manifestVersion: MANIFEST_VERSION,
      runId,
      kind,
      // A run of Delta tables alone has no snapshot files: no pointer names it (see pointerOf).
      complete: isCompleteRun(kind, tables) && fileFormats.length > 0,
      requestedKind,
      previousRunId,
      createdAt: now.toISOString(),
      partitionDate: date,
      tool: toolVersion(),
      program: null,
      snapshot: { changeSeq, watermarks },
      moneyRule: MONEY_RULE,
      tables: listed,
      files: pending.map((file) => file.entry),
      schemaDrift,
      ...(delta ? { delta } : {}),
      ...(ledger !== undefined ? { ledger } : {}),
    };
    let manifestUrl: string | null = null;
    if (publisher) {
      await publisher.drain();
      bucketManifestMayBeVisible = true;
      manifestUrl = await publisher.putManifest(manifest);
      completePublication(db, runId, new Date().toISOString(), publisher.totals.files, publisher.totals.bytes, manifestUrl);
      publicationCompleted = true;
      await publisher.finishRun(runId).catch((error: unknown) => logger.warn({ err: error }, 'could not abort an unfinished upload of this run; the next export tries again'));
    }
    let manifestPath = manifestUrl ?? '';
    if (keepLocal) {
      for (const file of pending) {
        await publish(file.tmpPath, file.finalPath);
        published.push(file.finalPath);
      }
      manifestPath = join(root, await writeManifest(root, manifest, logger));
      localManifestWritten = true;
    }
    completeRun(db, runId, new Date().toISOString(), changeSeq, manifestPath, pending.length, outcomes);

    // The run is complete and published; failing to prune old runs must not undo it.
    const retention = [applyRetention(folder, config.export.retainRuns, runId, logger), ...(publisher ? [publisher.applyRetention(config.export.retainRuns, runId)] : [])];
    for (const [index, pruning] of retention.entries()) {
      const where = index === 0 ? root : (publisher?.url ?? '');
      await pruning.then(
        (expired) => expired.length > 0 && logger.info({ runs: expired, where }, `removed ${expired.length} old export run(s) from ${where}`),
        (error: unknown) => logger.warn({ err: error, where }, `could not remove old export runs from ${where}; the next export tries again`),
      );
    }
    const totalRows = pending.reduce((sum, file) => sum + file.entry.rows, 0);
    logger.info({ kind, files: pending.length, rows: totalRows, manifest: manifestPath, ...(manifestUrl ? { published: manifestUrl } : {}) }, 'export finished');
    const publication = publisher && manifestUrl !== null ? { url: publisher.url, manifestUrl, ...publisher.totals, keptLocal: keepLocal } : null;
    return { runId, manifestPath, files: manifest.files, delta: delta ?? [], kind, publication };
  } catch (error) {
    if (snapshot.db.open) snapshot.close();
    if (!bucketManifestMayBeVisible) await publisher?.discardRun();
    await Promise.all([...pending.map((file) => file.tmpPath), ...(localManifestWritten ? [] : published)].map((path) => rm(path, { force: true })));
    const message = error instanceof Error ? error.message : String(error);
    if (started) {
      failRun(db, runId, new Date().toISOString(), message);
      if (publisher && !publicationCompleted) failPublication(db, runId, new Date().toISOString(), publisher.totals.files, publisher.totals.bytes, message);
    }
    throw new Error(`Export ${runId} failed: ${message}`, { cause: error });
  } finally {
    deltaLock?.release();
    publisher?.destroy();
  }
}

/** The Delta tables' places: the export folder unless only the bucket keeps the run, and the bucket when there is one. */
function deltaPlaces(root: string, keepLocal: boolean, publisher: BucketPublisher | null): DeltaPlace[] {
  const places: DeltaPlace[] = [];
  if (keepLocal) places.push({ where: 'local', storeFor: (table) => new DiskDeltaStore(join(root, DELTA_DIR, table)) });
  if (publisher) places.push({ where: 'bucket', storeFor: (table) => publisher.deltaStore(table) });
  return places;
}

function newestRunId(runIds: string[]): string {
  return [...runIds].sort().at(-1) ?? '';
}

function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}
