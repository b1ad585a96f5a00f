import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parquetColumns } from '../../src/export/arrowColumns.js';
import type { ColumnBatch } from '../../src/export/columnBatches.js';
import { FileSink } from '../../src/export/fileSink.js';
import { writeParquet } from '../../src/export/parquetWriter.js';
import { duckdb, query, tempDir } from './helpers.js';

const BATCHES = 120;
const ROWS_PER_BATCH = 1024;
/** Random bytes as base64: zstd shrinks them little, so the encoded file is about as large as its input (some 63 MB here). */
const PAYLOAD_CHARS = 512;

/** Batches of (id, payload) rows, counting how many the writer has taken. */
function payloadBatches(counter: { pulled: number }): Iterable<ColumnBatch> {
  return (function* () {
    for (let batch = 0; batch < BATCHES; batch += 1) {
      counter.pulled += 1;
      const ids = Array.from({ length: ROWS_PER_BATCH }, (_, row) => batch * ROWS_PER_BATCH + row + 1);
      const bytes = Buffer.from(randomBytes((ROWS_PER_BATCH * PAYLOAD_CHARS * 3) / 4).toString('base64'));
      yield { length: ROWS_PER_BATCH, columns: [{ kind: 'values', values: ids }, { kind: 'text', bytes, lengths: ids.map(() => PAYLOAD_CHARS) }] };
    }
  })();
}

describe('Parquet export onto a disk that stalls', () => {
  const dir = tempDir();
  let duck: Awaited<ReturnType<typeof duckdb>>;

  beforeAll(async () => {
    duck = await duckdb();
  });
  afterAll(() => duck.close());

  it('stops reading rows while written bytes wait for the disk, then completes the file', async () => {
    const path = join(dir, 'stalled.parquet');
    const file = await FileSink.create(path);
    let release!: () => void;
    const diskBack = new Promise<void>((resolve) => (release = resolve));
    let writesStarted = 0;
    const stalledDisk = {
      write: async (chunk: Uint8Array) => {
        writesStarted += 1;
        await diskBack;
        await file.write(chunk);
      },
    };
    const counter = { pulled: 0 };
    const columns = parquetColumns([{ name: 'id', type: 'integer' }, { name: 'payload', type: 'text' }], () => 2);
    const writing = writeParquet(payloadBatches(counter), columns, stalledDisk, { rowGroupSize: ROWS_PER_BATCH, createdBy: 'test' });
    try {
      // Once encoded bytes wait for the disk, wait until reading has stopped (no new batch for a while) or every batch has been read.
      while (writesStarted === 0) await sleep(10);
      let quietTurns = 0;
      while (quietTurns < 20 && counter.pulled < BATCHES) {
        const before = counter.pulled;
        await sleep(25);
        quietTurns = counter.pulled === before ? quietTurns + 1 : 0;
      }
      // Reading went on while the encoded bytes waiting stayed under the bound (16 MB, some 31 batches here),
      // then stopped: without a bound the whole table (about 63 MB encoded) would now sit in memory.
      expect(counter.pulled).toBeGreaterThan(20);
      expect(counter.pulled).toBeLessThan(BATCHES / 2);
    } finally {
      release();
    }
    const result = await writing;
    await file.finish();
    expect(result.rows).toBe(BATCHES * ROWS_PER_BATCH);
    const [summary] = await query(duck.connection, `SELECT count(*)::VARCHAR AS n, sum(id)::VARCHAR AS ids, min(length(payload)) AS shortest, max(length(payload)) AS longest FROM '${path}'`);
    const n = BATCHES * ROWS_PER_BATCH;
    expect(summary).toEqual({ n: String(n), ids: String((n * (n + 1)) / 2), shortest: String(PAYLOAD_CHARS), longest: String(PAYLOAD_CHARS) });
  });
});
