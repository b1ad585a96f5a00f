import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readWithEngine } from '../../helpers/deltaEngine.js';
import { duckdb, tempDir } from '../helpers.js';

/**
 * The engine helper reads any Delta table, not only the mirror's: the ledger's tables bring dates and
 * decimals. A table written by hand (its data file by DuckDB, its log as PROTOCOL.md has it) with every
 * primitive the project may write reads back exactly: dates as `YYYY-MM-DD`, a 38-digit decimal as its text,
 * a timestamp a microsecond before the epoch as -1, booleans, 64-bit integers beyond 2^53, and nulls.
 */
describe('the Delta engine helper on every column type', () => {
  it('types each value exactly', async () => {
    const root = tempDir('delta-engine-types-');
    const file = 'part-00000.parquet';
    const duck = await duckdb();
    try {
      await duck.connection.run(`COPY (
        SELECT 9007199254740993::BIGINT AS id, DATE '2026-03-01' AS booked_on, 12345678901234567890123456789012.345678::DECIMAL(38, 6) AS amount,
               TIMESTAMPTZ '1969-12-31 23:59:59.999999+00' AS at, true AS settled, 'Zoë "Zee"' AS note
        UNION ALL
        SELECT 2, NULL, NULL, NULL, NULL, NULL
      ) TO '${join(root, file)}' (FORMAT parquet)`);
    } finally {
      duck.close();
    }
    const fields = [
      ['id', 'long'],
      ['booked_on', 'date'],
      ['amount', 'decimal(38,6)'],
      ['at', 'timestamp'],
      ['settled', 'boolean'],
      ['note', 'string'],
    ].map(([name, type]) => ({ name, type, nullable: true, metadata: {} }));
    const actions = [
      { protocol: { minReaderVersion: 1, minWriterVersion: 2 } },
      { metaData: { id: 'types', format: { provider: 'parquet', options: {} }, schemaString: JSON.stringify({ type: 'struct', fields }), partitionColumns: [], configuration: {}, createdTime: 0 } },
      { add: { path: file, partitionValues: {}, size: statSync(join(root, file)).size, modificationTime: 0, dataChange: true } },
    ];
    mkdirSync(join(root, '_delta_log'));
    writeFileSync(join(root, '_delta_log', '00000000000000000000.json'), actions.map((action) => JSON.stringify(action)).join('\n') + '\n');

    const table = readWithEngine(root);
    expect(table.columns.map((column) => column.name)).toEqual(fields.map((field) => field.name));
    expect(table.rows).toEqual([
      { id: 2n, booked_on: null, amount: null, at: null, settled: null, note: null },
      { id: 9007199254740993n, booked_on: '2026-03-01', amount: '12345678901234567890123456789012.345678', at: -1n, settled: true, note: 'Zoë "Zee"' },
    ]);
  });
});
