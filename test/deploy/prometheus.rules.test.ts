import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { promtool } from '../helpers/exposition.js';
import { exportedSeriesNames, metricNamesIn } from '../helpers/promql.js';
import { tempDir } from '../helpers/tempDir.js';

const RULES = fileURLToPath(new URL('../../deploy/prometheus/loyalty-sync.rules.yml', import.meta.url));
const RUN_RULES = fileURLToPath(new URL('../../deploy/prometheus/loyalty-sync-run.rules.yml', import.meta.url));
const rules = [RULES, RUN_RULES].flatMap((file) => (parse(readFileSync(file, 'utf8')) as { groups: Array<{ rules: Array<{ alert: string; expr: string }> }> }).groups.flatMap((group) => group.rules));

describe('the Prometheus rules files', () => {
  it('pass promtool check rules', async () => {
    const result = await promtool(['check', 'rules', RULES, RUN_RULES]);
    expect(result.output).toContain('SUCCESS: 10 rules found');
    expect(result.output).toContain('SUCCESS: 1 rules found');
    expect(result.code).toBe(0);
  });

  it('alerts on a stale or never successful sync, API errors, a 429 storm, dead jobs, ageing unknown jobs, a stale or never successful export, the process down, a defect found by verify and an overdue deep refresh', () => {
    expect(rules.map((rule) => rule.alert).sort()).toEqual([
      'LoyaltyApiErrors',
      'LoyaltyApiRateLimitStorm',
      'LoyaltyDeadJobs',
      'LoyaltyDeepRefreshOverdue',
      'LoyaltyExportNeverSucceeded',
      'LoyaltyExportStale',
      'LoyaltySyncDown',
      'LoyaltySyncNeverSucceeded',
      'LoyaltySyncStale',
      'LoyaltyUnknownJobsAgeing',
      'LoyaltyVerifyDefects',
    ]);
  });

  it('reads only families the code exports (and the scrape target state `up`)', async () => {
    const exported = await exportedSeriesNames();
    exported.add('up');
    for (const rule of rules) for (const name of metricNamesIn(rule.expr)) expect(exported.has(name), `${rule.alert}: ${name}`).toBe(true);
  });

  it("become PrometheusRule objects with the same groups through the README's recipe", () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const recipe = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]).find((block) => block.includes('kind: PrometheusRule'));
    expect(recipe).toBeDefined();
    // Print what would be applied instead of applying it.
    const printed = execFileSync('sh', ['-c', recipe!.replace(/\| *kubectl apply -f -/, '').replace(/^ {2}/gm, '')], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      encoding: 'utf8',
    });
    const objects = parseAllDocuments(printed).map((document) => document.toJS() as { kind: string; metadata: { name: string }; spec: unknown });
    expect(objects.map((object) => `${object.kind}/${object.metadata.name}`)).toEqual(['PrometheusRule/loyalty-sync', 'PrometheusRule/loyalty-sync-run']);
    expect(objects[0].spec).toEqual(parse(readFileSync(RULES, 'utf8')));
    expect(objects[1].spec).toEqual(parse(readFileSync(RUN_RULES, 'utf8')));
  });
});

/** `promtool test rules` of `tests` (promtool's unit-test groups) against the rules file; its output when a case fails. */
async function ruleTests(tests: unknown[]): Promise<{ code: number | null; output: string }> {
  const file = join(tempDir('loyalty-rule-tests-'), 'tests.yml');
  // JSON is YAML, and needs no quoting rules of its own.
  writeFileSync(file, JSON.stringify({ rule_files: [RULES], evaluation_interval: '1m', tests }));
  return promtool(['test', 'rules', file]);
}

describe('the alerts on verify and the deep refresh (issue 25), under promtool test rules', () => {
  it('LoyaltyVerifyDefects fires for a stream whose last verify left a defect, at once, and not for pending differences alone', async () => {
    const defects = (stream: string, values: string) => ({ series: `loyalty_verify_differences{stream="${stream}",class="defect"}`, values });
    const pending = (stream: string, values: string) => ({ series: `loyalty_verify_differences{stream="${stream}",class="pending"}`, values });
    const firing = (stream: string, count: number) => ({
      exp_labels: { severity: 'warning', stream },
      exp_annotations: {
        summary: `loyalty-sync: the last verify found ${count} defect(s) in ${stream}`,
        description: `Rows of ${stream} differ from the API and no pass of the sync will bring them. \`loyalty-sync verify --full --stream ${stream}\` names them; \`verify --repair\` fixes them.`,
      },
    });
    const result = await ruleTests([
      {
        interval: '1m',
        // A live program: orders always have refunds pending; a verify at minute 3 finds 2 defects, one at minute 6 none.
        input_series: [defects('orders', '0 0 0 2 2 2 0 0'), pending('orders', '40+0x7'), defects('activities', '0+0x7'), pending('activities', '12+0x7')],
        alert_rule_test: [
          { eval_time: '2m', alertname: 'LoyaltyVerifyDefects', exp_alerts: [] },
          { eval_time: '3m', alertname: 'LoyaltyVerifyDefects', exp_alerts: [firing('orders', 2)] },
          { eval_time: '7m', alertname: 'LoyaltyVerifyDefects', exp_alerts: [] },
        ],
      },
    ]);
    expect(result.output).toContain('SUCCESS');
    expect(result.code).toBe(0);
  });

  it('LoyaltyDeepRefreshOverdue fires 48 hours after the last completed deep refresh, not before, and not for a stream whose last one is recent', async () => {
    const result = await ruleTests([
      {
        // Every 5 minutes, as a scrape would, for 50 hours: orders last completed at 0; activities first 30 hours in.
        interval: '5m',
        input_series: [
          { series: 'loyalty_deep_refresh_last_success_timestamp_seconds{stream="orders"}', values: '0+0x600' },
          { series: 'loyalty_deep_refresh_last_success_timestamp_seconds{stream="activities"}', values: `_x360 ${30 * 3600}+0x240` },
        ],
        alert_rule_test: [
          { eval_time: '47h', alertname: 'LoyaltyDeepRefreshOverdue', exp_alerts: [] },
          {
            eval_time: '49h',
            alertname: 'LoyaltyDeepRefreshOverdue',
            exp_alerts: [
              {
                exp_labels: { severity: 'warning', stream: 'orders' },
                exp_annotations: {
                  summary: 'loyalty-sync: no deep refresh of orders has completed for over 48 hours',
                  description:
                    'The last deep refresh of orders completed 2d 1h 0m 0s ago, so changes to its old records (refunds, late approvals and voids) are not reaching the mirror. Check `loyalty-sync status` and the sync\'s logs.',
                },
              },
            ],
          },
        ],
      },
    ]);
    expect(result.output).toContain('SUCCESS');
    expect(result.code).toBe(0);
  });
});
