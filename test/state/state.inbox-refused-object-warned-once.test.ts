import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { parseSamples, sumOf } from '../helpers/exposition.js';
import { STORE_KINDS, useStateStore } from './stateStore.js';

/** The log's warnings about an object that is no inbox file, and about a CSV file refused for its rows. */
const WARNINGS = ['are not KIND/NAME.csv and were left alone', 'refused, nothing queued'];

/**
 * An object under inbox/ that is no inbox file (a spreadsheet dropped beside the CSV files) queues nothing, as a
 * CSV file with bad rows does. Each is told once, in the log, and then only counted as refused, in the metric and in `status`, until it is
 * removed; the same path with new content is told again. Each run is a fresh container, as a job without a
 * volume is, so only the mirror in the state can remember it.
 */
describe.each(STORE_KINDS)('refused objects in the write inbox (state.url in a %s)', (kind) => {
  const store = useStateStore({ seed: 36, size: 'tiny' }, kind);
  const PREFIX = 'inbox-not-csv';
  const OBJECT = 'inbox/add_points/june.xlsx';
  const BROKEN = 'inbox/add_points/broken.csv';

  /** `once` in a fresh folder: how often its log warned about a refused object or file, and loyalty_inbox_files{outcome="refused"}. */
  async function once(): Promise<{ warnings: number; refused: number }> {
    const { dir, env } = store.freshRun(PREFIX);
    const metricsFile = join(dir, 'once.prom');
    const result = await runCli(['once', '--metrics-file', metricsFile], { env });
    expect(result.code, result.stderr).toBe(0);
    const samples = parseSamples(readFileSync(metricsFile, 'utf8'));
    const warnings = WARNINGS.map((warning) => result.stderr.split(warning).length - 1).reduce((sum, count) => sum + count, 0);
    return { warnings, refused: sumOf(samples, 'loyalty_inbox_files', { outcome: 'refused' }) };
  }

  async function statusInbox(): Promise<{ files: Record<string, number>; refused: string[] }> {
    const result = await runCli(['status', '--json'], { env: store.freshRun(PREFIX).env });
    expect(result.code, result.stderr).toBe(0);
    return (JSON.parse(result.stdout) as { inbox: { files: Record<string, number>; refused: string[] } }).inbox;
  }

  async function remove(key: string): Promise<void> {
    if (kind === 'bucket') await store.client.send(new DeleteObjectCommand({ Bucket: store.bucket(), Key: key }));
    else rmSync(join(fileURLToPath(store.url('')), key));
  }

  it('an object that is no CSV file, like a CSV file with bad rows, is warned about once, counted as refused while it stays, told again once replaced, and forgotten once removed', async () => {
    expect(await once()).toEqual({ warnings: 0, refused: 0 });
    await store.putText(`${PREFIX}/${OBJECT}`, 'PK\u0003\u0004 a spreadsheet');
    await store.putText(`${PREFIX}/${BROKEN}`, 'customer_merchant_id,points,reason\nnobody,lots,bad row\n');

    expect(await once(), 'the first run that sees them').toEqual({ warnings: 2, refused: 2 });
    expect((await store.getBytes(`${PREFIX}/${OBJECT}.errors.txt`)).toString('utf8')).toMatch(/^inbox\/add_points\/june\.xlsx: not an inbox file; expected inbox\/KIND\/NAME\.csv with KIND one of add_points, /);
    expect(await once(), 'the next run, in a fresh folder').toEqual({ warnings: 0, refused: 2 });
    expect(await statusInbox()).toEqual({ files: { imported: 0, refused: 2, duplicate: 0 }, refused: [BROKEN, OBJECT] });
    const check = await runCli(['status', '--check'], { env: store.freshRun(PREFIX).env });
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(`refused inbox: 2 files queued nothing (${BROKEN}, ${OBJECT})`);

    await store.putText(`${PREFIX}/${OBJECT}`, 'PK\u0003\u0004 the same spreadsheet, saved again with more in it');
    expect(await once(), 'new content under the same path').toEqual({ warnings: 1, refused: 2 });
    expect(await once()).toEqual({ warnings: 0, refused: 2 });

    await remove(`${PREFIX}/${OBJECT}`);
    expect(await once(), 'removed').toEqual({ warnings: 0, refused: 1 });
    expect(await statusInbox()).toEqual({ files: { imported: 0, refused: 1, duplicate: 0 }, refused: [BROKEN] });
    expect(await store.listKeys(`${PREFIX}/inbox/`)).toEqual([`${PREFIX}/${BROKEN}`, `${PREFIX}/inbox/add_points/broken.errors.txt`]);
  });
});
