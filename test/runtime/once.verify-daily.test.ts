import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';
import { parseSamples, sumOf } from '../helpers/exposition.js';
import { tempDir } from '../helpers/tempDir.js';

let sim: SimulatorHandle;
beforeAll(async () => {
  sim = await startSimulator({ seed: 31, size: 'tiny' });
});
afterAll(async () => sim.close());

const DAY_MS = 24 * 60 * 60 * 1000;

describe('once --verify-daily', () => {
  it('verifies on the first run of a day only; a verify of fewer streams or one cut short does not count, and skipped runs still report the last verify', async () => {
    const dir = tempDir('ls-once-verify-daily-');
    const env = { LOYALTY_API_KEY: sim.keys.full, LOYALTY_BASE_URL: sim.url, LOYALTY_DB: join(dir, 'mirror.db'), LOYALTY_EXPORT_DIR: join(dir, 'exports') };
    const metricsFile = join(dir, 'loyalty_sync.prom');
    const once = () => runCli(['once', '--verify-daily', '--metrics-file', metricsFile], { env });
    const steps = (stdout: string) => stdout.split('\n').filter((line) => /^(ok|FAIL|SKIP) /.test(line));
    const verifyLine = (stdout: string) => steps(stdout).find((line) => line.slice(5).startsWith('verify:'));
    const verifyRuns = () => {
      const mirror = new Database(join(dir, 'mirror.db'), { readonly: true });
      try {
        return mirror.prepare('SELECT count(*) FROM verify_runs').pluck().get() as number;
      } finally {
        mirror.close();
      }
    };

    const first = await once();
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(steps(first.stdout).map((line) => line.slice(5).split(':')[0])).toEqual(['sync', 'verify', 'push', 'export']);
    expect(verifyLine(first.stdout)).toMatch(/^ok {3}verify: no defects, \d+ requests; .*ledger 0 defect\(s\) of \d+ customers/);
    expect(verifyRuns()).toBe(1);

    const second = await once();
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(verifyLine(second.stdout)).toMatch(/^ok {3}verify: not due \(--verify-daily\): today's verify finished at \S+ \(no defects\)$/);
    expect(verifyRuns()).toBe(1);
    // The skipped run's metrics still carry the day's verify, so its alerts neither fire nor resolve by a skip.
    const mirror = new Database(join(dir, 'mirror.db'));
    const finishedAt = mirror.prepare('SELECT finished_at FROM verify_runs').pluck().get() as string;
    const samples = parseSamples(readFileSync(metricsFile, 'utf8'));
    expect(sumOf(samples, 'loyalty_verify_last_run_timestamp_seconds')).toBe(Date.parse(finishedAt) / 1000);
    expect(samples.filter((sample) => sample.name === 'loyalty_ledger_defects').map((sample) => sample.value)).toEqual([0]);

    // A verify that found defects is the day's verify too: its run failed, the later ones skip it and say so.
    mirror.prepare('UPDATE verify_runs SET ok = 0').run();
    const afterDefects = await once();
    expect(afterDefects.code, afterDefects.stdout + afterDefects.stderr).toBe(0);
    expect(verifyLine(afterDefects.stdout)).toMatch(/^ok {3}verify: not due \(--verify-daily\): today's verify finished at \S+ \(DEFECTS: `loyalty-sync status` shows them/);
    expect(verifyRuns()).toBe(1);
    expect(sumOf(parseSamples(readFileSync(metricsFile, 'utf8')), 'loyalty_verify_last_run_ok')).toBe(0);
    mirror.prepare('UPDATE verify_runs SET ok = 1').run();

    // Yesterday's verify, and today one of a single stream: the next run verifies again.
    const dayEarlier = (iso: string) => new Date(Date.parse(iso) - DAY_MS).toISOString();
    mirror.function('day_earlier', dayEarlier);
    mirror.prepare('UPDATE verify_runs SET started_at = day_earlier(started_at), finished_at = day_earlier(finished_at)').run();
    mirror.close();
    const oneStream = await runCli(['verify', '--stream', 'unsubscribes'], { env });
    expect(oneStream.code, oneStream.stdout + oneStream.stderr).toBe(0);
    expect(verifyRuns()).toBe(2);
    const nextDay = await once();
    expect(nextDay.code, nextDay.stdout + nextDay.stderr).toBe(0);
    expect(verifyLine(nextDay.stdout)).toMatch(/^ok {3}verify: no defects/);
    expect(verifyRuns()).toBe(3);

    // A verify that could not finish (a stream failed) is tried again on the next run.
    const failed = new Database(join(dir, 'mirror.db'));
    failed.prepare("UPDATE verify_runs SET status = 'failed', error = 'orders: the API could not be reached' WHERE id = (SELECT max(id) FROM verify_runs)").run();
    failed.close();
    const retry = await once();
    expect(retry.code, retry.stdout + retry.stderr).toBe(0);
    expect(verifyLine(retry.stdout)).toMatch(/^ok {3}verify: no defects/);
    expect(verifyRuns()).toBe(4);
  });

  it("counts the day in schedule.timezone, not UTC's (Pacific/Kiritimati, UTC+14)", async () => {
    const dir = tempDir('ls-once-verify-zone-');
    const env = { LOYALTY_API_KEY: sim.keys.full, LOYALTY_BASE_URL: sim.url, LOYALTY_DB: join(dir, 'mirror.db'), LOYALTY_EXPORT_DIR: join(dir, 'exports') };
    const first = await runCli(['once', '--verify-daily'], { env });
    expect(first.code, first.stdout + first.stderr).toBe(0);
    // An instant whose calendar day is today's in one zone and not in the other, whatever the hour of the run.
    const day = (zone: string, ms: number) => new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(ms);
    const now = Date.now();
    let moved = now;
    while (day('UTC', moved) === day('UTC', now) && day('Pacific/Kiritimati', moved) === day('Pacific/Kiritimati', now)) moved -= 60 * 60 * 1000;
    const todayInUtc = day('UTC', moved) === day('UTC', now);
    const mirror = new Database(join(dir, 'mirror.db'));
    mirror.prepare('UPDATE verify_runs SET finished_at = ?').run(new Date(moved).toISOString());
    mirror.close();
    const inKiritimati = await runCli(['once', '--verify-daily'], { env: { ...env, LOYALTY_SCHEDULE__TIMEZONE: 'Pacific/Kiritimati' } });
    expect(inKiritimati.code, inKiritimati.stdout + inKiritimati.stderr).toBe(0);
    const line = inKiritimati.stdout.split('\n').find((text) => text.startsWith('ok   verify:'));
    // Due in Kiritimati exactly when that instant is on another day there.
    expect(line).toMatch(todayInUtc ? /^ok {3}verify: no defects/ : /^ok {3}verify: not due/);
  });

  it('refuses --verify with --verify-daily in one sentence, before anything runs', async () => {
    const dir = tempDir('ls-once-verify-both-');
    const env = { LOYALTY_API_KEY: sim.keys.full, LOYALTY_BASE_URL: sim.url, LOYALTY_DB: join(dir, 'mirror.db') };
    const result = await runCli(['once', '--verify', '--verify-daily'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--verify and --verify-daily were both given; expected one of them');
    expect(existsSync(join(dir, 'mirror.db'))).toBe(false);
  });
});
