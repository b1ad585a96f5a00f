import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { promtool } from '../helpers/exposition.js';
import { exportedSeriesNames, metricNamesIn } from '../helpers/promql.js';

const RULES = fileURLToPath(new URL('../../deploy/prometheus/loyalty-sync.rules.yml', import.meta.url));
const rules = (parse(readFileSync(RULES, 'utf8')) as { groups: Array<{ rules: Array<{ alert: string; expr: string }> }> }).groups.flatMap((group) => group.rules);

describe('the Prometheus rules file', () => {
  it('passes promtool check rules', async () => {
    const result = await promtool(['check', 'rules', RULES]);
    expect(result.output).toContain('SUCCESS: 9 rules found');
    expect(result.code).toBe(0);
  });

  it('alerts on a stale or never successful sync, API errors, a 429 storm, dead jobs, ageing unknown jobs, a stale or never successful export and the process down', () => {
    expect(rules.map((rule) => rule.alert).sort()).toEqual([
      'LoyaltyApiErrors',
      'LoyaltyApiRateLimitStorm',
      'LoyaltyDeadJobs',
      'LoyaltyExportNeverSucceeded',
      'LoyaltyExportStale',
      'LoyaltySyncDown',
      'LoyaltySyncNeverSucceeded',
      'LoyaltySyncStale',
      'LoyaltyUnknownJobsAgeing',
    ]);
  });

  it('reads only families the code exports (and the scrape target state `up`)', async () => {
    const exported = await exportedSeriesNames();
    exported.add('up');
    for (const rule of rules) for (const name of metricNamesIn(rule.expr)) expect(exported.has(name), `${rule.alert}: ${name}`).toBe(true);
  });
});
