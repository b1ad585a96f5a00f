import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { openDatabase } from '../../src/db/open.js';
import { loadDeepRefresh } from '../../src/sync/deepRefreshState.js';
import { resumeWork } from '../helpers/checkpoints.js';
import { runCli } from '../helpers/cli.js';
import { parseSamples, sumOf } from '../helpers/exposition.js';
import { freshMirror } from '../helpers/tempDir.js';

/** `verify.requests`'s default: the budget of a sampled verify. */
const VERIFY_REQUESTS = 50;
/** `api.pageSize`'s default. */
const PAGE_SIZE = 500;

let sim: SimulatorHandle | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe('once --verify and status', () => {
  it('runs a sampled verify after the sync, and status shows the last verify (text and --json)', async () => {
    sim = await startSimulator({ seed: 6, size: 'tiny' });
    const { db, path, dir } = freshMirror();
    // The first sync reads every list whole; what else the run asks the API is the verify's (nothing is queued to push).
    const syncRequests = Object.values(resumeWork(db, sim, PAGE_SIZE)).reduce((sum, work) => sum + work.pagesLeft, 0);
    db.close();
    const env = { LOYALTY_API_KEY: sim.keys.full, LOYALTY_BASE_URL: sim.url, LOYALTY_DB: path, LOYALTY_EXPORT_DIR: join(dir, 'exports') };

    const metricsFile = join(dir, 'loyalty_sync.prom');
    const requestsBefore = sim.stats().requests;
    const once = await runCli(['once', '--verify', '--metrics-file', metricsFile], { env });
    expect(once.code, once.stderr).toBe(0);
    const verifyRequests = sim.stats().requests - requestsBefore - syncRequests;
    expect(verifyRequests).toBeGreaterThan(0);
    expect(verifyRequests).toBeLessThanOrEqual(VERIFY_REQUESTS);
    const steps = once.stdout.split('\n').filter((line) => /^(ok|FAIL)/.test(line));
    expect(steps.map((line) => line.split(/\s+/)[1])).toEqual(['sync:', 'verify:', 'push:', 'export:']);
    expect(steps[1]).toMatch(new RegExp(`^ok {3}verify: no defects, ${verifyRequests} requests; customers 0/0/0 of \\d+`));

    // The run's metrics carry what the verify left, and where each deep refresh stands, as the mirror records them.
    const samples = parseSamples(readFileSync(metricsFile, 'utf8'));
    const mirror = openDatabase(path, { readonly: true });
    const finishedAt = mirror.prepare('SELECT finished_at FROM verify_runs').pluck().get() as string;
    const deep = (['orders', 'activities'] as const).map((stream) => ({ stream, ...loadDeepRefresh(mirror, stream) }));
    mirror.close();
    expect(sumOf(samples, 'loyalty_verify_last_run_ok')).toBe(1);
    expect(sumOf(samples, 'loyalty_verify_last_run_timestamp_seconds')).toBe(Date.parse(finishedAt) / 1000);
    expect(samples.filter((sample) => sample.name === 'loyalty_verify_differences').map((sample) => `${sample.labels.stream}/${sample.labels.class}=${sample.value}`)).toEqual(
      ['customers', 'orders', 'activities', 'transactions', 'unsubscribes'].flatMap((stream) => [`${stream}/pending=0`, `${stream}/defect=0`]),
    );
    for (const state of deep) {
      expect(sumOf(samples, 'loyalty_deep_refresh_pages', { stream: state.stream }), state.stream).toBe(state.plan === null ? 0 : state.pages);
      const lastSuccess = samples.filter((sample) => sample.name === 'loyalty_deep_refresh_last_success_timestamp_seconds' && sample.labels.stream === state.stream);
      expect(lastSuccess.map((sample) => sample.value)).toEqual(state.lastCompletedAt === null ? [] : [Date.parse(state.lastCompletedAt) / 1000]);
    }

    const json = await runCli(['status', '--json'], { env });
    expect(json.code).toBe(0);
    const status = JSON.parse(json.stdout) as { lastVerify: Record<string, unknown> & { streams: Array<Record<string, unknown>> } };
    expect(status.lastVerify).toMatchObject({ mode: 'sample', repair: false, status: 'succeeded', ok: true, differences: 0 });
    expect(status.lastVerify.requests).toBe(verifyRequests);
    expect(status.lastVerify.streams.map((stream) => stream.stream)).toEqual(['customers', 'orders', 'activities', 'transactions', 'unsubscribes']);

    const text = await runCli(['status'], { env });
    expect(text.stdout).toMatch(new RegExp(`Last verify\nsampled finished \\S+: ok\n\\d+ rows compared, 0 defects, \\d+ pending \\(\\d+ at the next sync\\), ${verifyRequests} requests`));
  });
});
