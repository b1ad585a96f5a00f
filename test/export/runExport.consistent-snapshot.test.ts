import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/open.js';
import { runExport, type Manifest } from '../../src/export/index.js';
import { duckdb, exportConfig, fillMirror, query, readCsv, silentLogger, tempDir } from './helpers.js';

const MARKER_ID_BASE = 50_000_000;
const MARKED_COLUMN: Record<string, string> = { customers: 'tier_name', orders: 'payment_status', activities: 'state', transactions: 'activity_state', unsubscribes: 'email' };

/**
 * A writer on its own connection and thread, as a sync would be: each transaction takes the next
 * change sequence number, stamps `marker-SEQ` into one row of every table, and inserts one
 * transaction row with id MARKER_ID_BASE + SEQ. Runs until told to stop.
 */
const WRITER = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 10000');
const stop = new Int32Array(workerData.stop);
const bump = db.prepare('UPDATE change_counter SET value = value + 1 WHERE id = 1 RETURNING value').pluck();
const marks = Object.entries(workerData.marked).map(([table, column]) => db.prepare('UPDATE ' + table + ' SET ' + column + ' = ?, _change_seq = ? WHERE id = (SELECT min(id) FROM ' + table + ')'));
const insert = db.prepare("INSERT INTO transactions (id, raw, _synced_at, _change_seq) VALUES (?, '{}', '2026-03-01T00:00:00Z', ?)");
let commits = 0;
while (Atomics.load(stop, 0) === 0) {
  db.transaction(() => {
    const seq = bump.get();
    for (const mark of marks) mark.run('marker-' + seq, seq);
    insert.run(${MARKER_ID_BASE} + seq, seq);
  })();
  commits += 1;
  if (commits === 5) parentPort.postMessage('writing');
}
db.close();
parentPort.postMessage(commits);
`;

describe('an export while another connection keeps writing', () => {
  const dir = tempDir();
  const config = exportConfig(dir, { parquetRowGroupSize: 1000 });
  let db: Db;

  beforeAll(async () => {
    db = await fillMirror(config.db.path, 21);
  });
  afterAll(() => db.close());

  it('shows every table, in every format, at the one instant of its snapshot', async () => {
    const stop = new Int32Array(new SharedArrayBuffer(4));
    const firstSeq = (db.prepare('SELECT value FROM change_counter').pluck().get() as number) + 1;
    const writer = new Worker(WRITER, { eval: true, workerData: { path: config.db.path, driver: createRequire(import.meta.url).resolve('better-sqlite3'), stop: stop.buffer, marked: MARKED_COLUMN } });
    const commits = new Promise<number>((resolve, reject) => {
      writer.on('message', (message: unknown) => typeof message === 'number' && resolve(message));
      writer.on('error', reject);
    });
    await new Promise((resolve) => writer.once('message', resolve));

    let report;
    try {
      report = await runExport({ db, config, logger: silentLogger });
      // Let the writer commit at least once more, so the snapshot is strictly inside its run.
      const exported = JSON.parse(await readFile(report.manifestPath, 'utf8')) as Manifest;
      while ((db.prepare('SELECT value FROM change_counter').pluck().get() as number) <= exported.snapshot.changeSeq) await delay(5);
    } finally {
      Atomics.store(stop, 0, 1);
    }
    const committed = await commits;
    const manifest = JSON.parse(await readFile(report.manifestPath, 'utf8')) as Manifest;
    const seq = manifest.snapshot.changeSeq;
    const finalSeq = db.prepare('SELECT value FROM change_counter').pluck().get() as number;
    // The writer was busy before, during and after the snapshot, so a torn read would show.
    expect(seq).toBeGreaterThan(firstSeq);
    expect(finalSeq).toBeGreaterThan(seq);
    expect(committed).toBe(finalSeq - firstSeq + 1);

    const expectedMarkerRows = seq - firstSeq + 1;
    // Every stream table in both formats, or the checks below would cover less than they claim (the ledger's
    // models go out too, empty here: no sync built them).
    const streamFiles = report.files.filter((file) => file.table in MARKED_COLUMN);
    const written = streamFiles.map((file) => `${file.table}.${file.format}`).sort();
    expect(written).toEqual(Object.keys(MARKED_COLUMN).flatMap((table) => [`${table}.csv`, `${table}.parquet`]).sort());
    const duck = await duckdb();
    try {
      for (const file of streamFiles) {
        const path = join(config.export.dir, file.path);
        const column = MARKED_COLUMN[file.table];
        let markers: string[];
        let inserted: number;
        let total: number;
        if (file.format === 'csv') {
          const { header, rows } = await readCsv(path);
          markers = rows.map((row) => row[header.indexOf(column)]).filter((value): value is string => value?.startsWith('marker-') === true);
          inserted = rows.filter((row) => Number(row[0]) > MARKER_ID_BASE).length;
          total = rows.length;
        } else {
          markers = (await query(duck.connection, `SELECT "${column}" AS m FROM '${path}' WHERE "${column}" LIKE 'marker-%'`)).map((row) => String(row.m));
          const [counts] = await query(duck.connection, `SELECT count(*) FILTER (WHERE TRY_CAST(id AS BIGINT) > ${MARKER_ID_BASE})::VARCHAR AS inserted, count(*)::VARCHAR AS total FROM '${path}'`);
          inserted = Number(counts.inserted);
          total = Number(counts.total);
        }
        expect(markers, `${file.table} ${file.format}`).toEqual([`marker-${seq}`]);
        expect(total, `${file.table} ${file.format}`).toBe(file.rows);
        if (file.table === 'transactions') expect(inserted, `${file.format}`).toBe(expectedMarkerRows);
      }
    } finally {
      duck.close();
    }
  });
});
