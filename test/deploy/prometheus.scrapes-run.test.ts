import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFailed, onTestFinished } from 'vitest';
import { METRICS_PATH } from '../../src/metrics/server.js';
import { startSimulator } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';
import { startCli } from '../helpers/process.js';
import { startPrometheus } from '../helpers/prometheus.js';
import { tempDir } from '../helpers/tempDir.js';

const RULE_FILES = ['loyalty-sync.rules.yml', 'loyalty-sync-run.rules.yml'].map((name) => fileURLToPath(new URL(`../../deploy/prometheus/${name}`, import.meta.url)));
const STREAMS = ['activities', 'customers', 'orders', 'transactions', 'unsubscribes'];
/** Never within a test. */
const NEVER = '0 0 1 1 *';
/** Prometheus scrapes and evaluates every second: the first results show within a few seconds. */
const MAX_POLLS = 120;

interface Alert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: 'pending' | 'firing';
}
interface Rule {
  name: string;
  health: 'ok' | 'err' | 'unknown';
  lastError?: string;
}

describe('Prometheus scraping a running `run`', () => {
  it("evaluates the deploy kit's alert rules on what it scraped: a dead job fires, a mirror never synced is pending, every rule evaluates", async () => {
    const sim = await startSimulator({ seed: 31, size: 'tiny' });
    onTestFinished(() => sim.close());
    const dir = tempDir('ls-prometheus-run-');
    const env = { LOYALTY_API_KEY: sim.keys.full, LOYALTY_BASE_URL: sim.url, LOYALTY_DB: join(dir, 'mirror.db'), LOYALTY_EXPORT_DIR: join(dir, 'exports') };
    // A write the API will refuse for good (no such customer): the run's push makes it dead.
    const queued = await runCli(['queue', 'add-points', '--customer', 'nobody-at-all', '--points', '5', '--reason', 'to nobody'], { env });
    expect(queued.code, queued.stderr).toBe(0);
    const configFile = join(dir, 'config.json');
    writeFileSync(configFile, JSON.stringify({ schedule: { sync: NEVER, refresh: NEVER, deepRefresh: NEVER, export: NEVER, verify: NEVER, push: '* * * * * *' } }));

    const run = startCli(['--config', configFile, 'run', '--metrics-listen', '127.0.0.1:0'], env);
    onTestFinished(async () => {
      if (run.child.exitCode === null) run.child.kill('SIGTERM');
      await run.exited;
    });
    const serving = await run.waitForLine((line) => typeof line.msg === 'string' && line.msg.startsWith('serving /metrics'));

    // The job name the run rules select (the ServiceMonitor's, see prometheus.scrape-job.test.ts).
    const prometheus = await startPrometheus({
      global: { scrape_interval: '1s', evaluation_interval: '1s' },
      rule_files: RULE_FILES,
      scrape_configs: [{ job_name: 'loyalty-sync', metrics_path: METRICS_PATH, static_configs: [{ targets: [`127.0.0.1:${String(serving.port)}`] }] }],
    });
    onTestFinished(() => prometheus.stop());
    onTestFailed(() => console.error(`prometheus log:\n${prometheus.log()}\nrun stderr: ${run.stderr()}\nlast run log records: ${JSON.stringify(run.lines.slice(-5))}`));

    const api = async <T>(path: string): Promise<T> => {
      const answer = (await (await fetch(`${prometheus.url}/api/v1/${path}`)).json()) as { status: string; data: T };
      expect(answer.status).toBe('success');
      return answer.data;
    };
    const named = (alerts: Alert[], name: string, state: Alert['state']) => alerts.filter((alert) => alert.labels.alertname === name && alert.state === state);

    let alerts: Alert[] = [];
    let rules: Rule[] = [];
    const neverSynced = () => named(alerts, 'LoyaltySyncNeverSucceeded', 'pending').map((alert) => alert.labels.stream).sort();
    // Each rule group evaluates on its own beat: one may have run before the first scrape (LoyaltySyncDown
    // pending on an absent `up`) and not yet since.
    const down = () => alerts.filter((alert) => alert.labels.alertname === 'LoyaltySyncDown');
    for (let poll = 0; poll < MAX_POLLS; poll++) {
      alerts = (await api<{ alerts: Alert[] }>('alerts')).alerts;
      rules = (await api<{ groups: Array<{ rules: Rule[] }> }>('rules')).groups.flatMap((group) => group.rules);
      const evaluated = rules.length > 0 && rules.every((rule) => rule.health !== 'unknown');
      if (evaluated && named(alerts, 'LoyaltyDeadJobs', 'firing').length > 0 && neverSynced().length === STREAMS.length && down().length === 0) break;
      await sleep(250);
    }

    const [dead] = named(alerts, 'LoyaltyDeadJobs', 'firing');
    expect(dead?.annotations.summary).toBe('loyalty-sync: 1 write job(s) are dead');
    expect(neverSynced()).toEqual(STREAMS);
    // The run answers its scrapes: its own alert is not even pending.
    expect(down()).toEqual([]);
    const up = await api<{ result: Array<{ value: [number, string] }> }>(`query?query=${encodeURIComponent('up{job="loyalty-sync"}')}`);
    expect(up.result.map((sample) => sample.value[1])).toEqual(['1']);
    for (const rule of rules) expect({ rule: rule.name, health: rule.health, error: rule.lastError ?? '' }).toEqual({ rule: rule.name, health: 'ok', error: '' });
    expect(rules.map((rule) => rule.name)).toContain('LoyaltySyncDown');
  });
});
