import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { parseSamples, sumOf } from '../helpers/exposition.js';
import { getBytes, putText } from '../s3/helpers.js';
import { useStateStore } from './stateStore.js';

/**
 * A refused inbox file queues nothing and leaves the run's exit code 0 (the run did its work): only the
 * metrics, `status` and `status --check` can tell an operator. Each run here is a fresh container, as a job
 * without a volume is.
 */
describe('the write inbox in monitoring (state.url)', () => {
  const store = useStateStore({ seed: 35, size: 'tiny' });
  const PREFIX = 'inbox-ops';
  const put = (path: string, text: string) => putText(store.client, store.bucket(), `${PREFIX}/${path}`, text);

  /** `once` in a fresh folder, with its metrics written to a file: the samples of loyalty_inbox_files by outcome. */
  async function once(): Promise<Record<string, number>> {
    const { dir, env } = store.freshRun(PREFIX);
    const metricsFile = join(dir, 'once.prom');
    const result = await runCli(['once', '--metrics-file', metricsFile], { env });
    expect(result.code, result.stderr).toBe(0);
    const samples = parseSamples(readFileSync(metricsFile, 'utf8'));
    return Object.fromEntries(['imported', 'refused', 'duplicate'].map((outcome) => [outcome, sumOf(samples, 'loyalty_inbox_files', { outcome })]));
  }

  async function status(args: string[] = []) {
    const { env } = store.freshRun(PREFIX);
    return runCli(['status', ...args], { env });
  }

  it('counts imported, refused and duplicate files, shows the refused in status, and fails status --check until the file is cleared', async () => {
    const customer = (store.sim().truth('customers') as Array<{ merchant_id: string; blocked: boolean }>).find((c) => !c.blocked)!;
    const good = `customer_merchant_id,points,reason\n${customer.merchant_id},5,monitoring\n`;
    expect(await once()).toEqual({ imported: 0, refused: 0, duplicate: 0 });

    await put('inbox/add_points/june.csv', good);
    await put('inbox/add_points/resend-of-june.csv', good);
    await put('inbox/add_points/broken.csv', 'customer_merchant_id,points,reason\nnobody,lots,bad row\n');
    expect(await once()).toEqual({ imported: 1, refused: 1, duplicate: 1 });
    expect(store.sim().ledger().filter((entry) => entry.target === customer.merchant_id)).toHaveLength(1);
    // The copy's results say what it was: the same job, queued once, by the file that brought the bytes first.
    const results = async (name: string) => (await getBytes(store.client, store.bucket(), `${PREFIX}/outbox/add_points/${name}.results.csv`)).toString('utf8').trim().split('\n');
    const [original, copy] = [await results('june'), await results('resend-of-june')];
    expect(original[1]).toMatch(new RegExp(`^${customer.merchant_id},5,monitoring,\\d+,succeeded,$`));
    expect(copy[1]).toBe(`${original[1]}"duplicated inbox/add_points/june.csv, queued nothing"`);

    const text = await status();
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('Write inbox\nfiles as of the last push: 1 imported, 1 refused, 1 duplicate\nREFUSED inbox/add_points/broken.csv: nothing queued; see the .errors.txt file beside it');
    const json = await status(['--json']);
    expect(JSON.parse(json.stdout).inbox).toEqual({ files: { imported: 1, refused: 1, duplicate: 1 }, refused: ['inbox/add_points/broken.csv'] });
    const check = await status(['--check']);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain('refused inbox: 1 file queued nothing (inbox/add_points/broken.csv); their problems are in the .errors.txt file beside each');

    // Cleared from the inbox: the next push's listing no longer shows it.
    await store.client.send(new DeleteObjectCommand({ Bucket: store.bucket(), Key: `${PREFIX}/inbox/add_points/broken.csv` }));
    expect(await once()).toEqual({ imported: 1, refused: 0, duplicate: 1 });
    const after = await status(['--check']);
    expect(after.stdout).not.toContain('refused inbox');
  });
});
