import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

interface CronJob {
  spec: {
    schedule: string;
    jobTemplate: { spec: { template: { spec: { containers: Array<{ args: string[]; env?: Array<{ name: string }> }> } } } };
  };
}

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const cronJob = parse(read('deploy/kubernetes/cronjob.yaml')) as CronJob;
const defaults = JSON.parse(read('config/default.json')) as { export: { retainRuns: number }; health: { maxSyncAgeMinutes: number; maxExportAgeHours: number } };
const rules = (parse(read('deploy/prometheus/loyalty-sync.rules.yml')) as { groups: Array<{ rules: Array<{ alert: string; expr: string }> }> }).groups.flatMap((group) => group.rules);

const MINUTES_PER_DAY = 24 * 60;

/** The seconds after `>` at the end of an alert's expression, such as `> 26 * 3600`. */
function thresholdSeconds(alert: string): number {
  const expr = rules.find((rule) => rule.alert === alert)?.expr ?? '';
  const factors = /> *([\d *]+)$/.exec(expr.trim())?.[1].split('*').map(Number);
  if (factors === undefined) throw new Error(`${alert} has no threshold: ${expr}`);
  return factors.reduce((product, factor) => product * factor, 1);
}

describe("the CronJob's cadence", () => {
  const [container] = cronJob.spec.jobTemplate.spec.template.spec.containers;
  const everyMinutes = Number(/^\*\/(\d+) \* \* \* \*$/.exec(cronJob.spec.schedule)?.[1]);
  const exportsPerDay = container.args.includes('--export-daily') ? 1 : MINUTES_PER_DAY / everyMinutes;

  it('syncs often enough that neither LoyaltySyncStale nor status --check sees a healthy CronJob as stale', () => {
    expect(everyMinutes).toBeGreaterThan(0);
    expect(container.args[0]).toBe('once');
    // Two runs fit in the threshold, so one slow or failed run does not page anyone.
    expect(2 * everyMinutes * 60).toBeLessThanOrEqual(thresholdSeconds('LoyaltySyncStale'));
    expect(2 * everyMinutes).toBeLessThanOrEqual(defaults.health.maxSyncAgeMinutes);
  });

  it('exports once a day, inside LoyaltyExportStale, and keeps at least a week of runs with export.retainRuns', () => {
    expect(exportsPerDay).toBe(1);
    expect(MINUTES_PER_DAY * 60).toBeLessThan(thresholdSeconds('LoyaltyExportStale'));
    expect(MINUTES_PER_DAY / 60).toBeLessThan(defaults.health.maxExportAgeHours);
    // The CronJob uses the default config (no file, no override of the retention).
    expect(container.env?.some((variable) => variable.name === 'LOYALTY_CONFIG')).toBe(false);
    const daysKept = defaults.export.retainRuns / exportsPerDay;
    expect(daysKept).toBeGreaterThanOrEqual(7);
  });
});
