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
    expect(result.output).toContain('SUCCESS: 14 rules found');
    expect(result.output).toContain('SUCCESS: 1 rules found');
    expect(result.code).toBe(0);
  });

  it('alerts on a stale or never successful sync, API errors, a 429 storm, dead jobs, ageing unknown jobs, a stale or never successful export, a failed publication, the process down, a defect found by verify, an overdue deep refresh and runs that keep skipping a held lease', () => {
    expect(rules.map((rule) => rule.alert).sort()).toEqual([
      'LoyaltyApiErrors',
      'LoyaltyApiRateLimitStorm',
      'LoyaltyDeadJobs',
      'LoyaltyDeepRefreshOverdue',
      'LoyaltyExportNeverSucceeded',
      'LoyaltyExportPublicationFailed',
      'LoyaltyExportStale',
      'LoyaltyInboxFileRefused',
      'LoyaltyLedgerDefects',
      'LoyaltyStateLeaseSkipping',
      'LoyaltySyncDown',
      'LoyaltySyncNeverSucceeded',
      'LoyaltySyncStale',
      'LoyaltyUnknownJobsAgeing',
      'LoyaltyVerifyDefects',
    ]);
  });

  it('reads only families the code exports (and the scrape target state `up`, and the Pushgateway\'s push_time_seconds)', async () => {
    const exported = await exportedSeriesNames();
    exported.add('up');
    // The Pushgateway's own series of each group it holds: when that group was last pushed.
    exported.add('push_time_seconds');
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

/**
 * `promtool test rules` of `tests` (promtool's unit-test groups) against a rules file; its output when a case fails.
 * Cases that span days evaluate every 5 minutes (an alert's state at an eval_time is then that of the evaluation before it).
 */
async function ruleTests(tests: unknown[], options: { rulesFile?: string; evaluationInterval?: string } = {}): Promise<{ code: number | null; output: string }> {
  const file = join(tempDir('loyalty-rule-tests-'), 'tests.yml');
  // JSON is YAML, and needs no quoting rules of its own.
  writeFileSync(file, JSON.stringify({ rule_files: [options.rulesFile ?? RULES], evaluation_interval: options.evaluationInterval ?? '1m', tests }));
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

  it('LoyaltyLedgerDefects fires while the last reconciliation found a defect, at once, and stops when one finds none', async () => {
    const result = await ruleTests([
      {
        interval: '1m',
        input_series: [{ series: 'loyalty_ledger_defects{job="loyalty-sync"}', values: '0 0 3 3 0' }],
        alert_rule_test: [
          { eval_time: '1m', alertname: 'LoyaltyLedgerDefects', exp_alerts: [] },
          {
            eval_time: '2m',
            alertname: 'LoyaltyLedgerDefects',
            exp_alerts: [
              {
                exp_labels: { severity: 'warning' },
                exp_annotations: {
                  summary: 'loyalty-sync: 3 balance(s) do not equal the sum of their transactions',
                  description:
                    'The last reconciliation found customers whose points_approved or points_pending differ from the sum of their transactions, and no sync in flight explains it. `loyalty-sync verify --ledger` names them.',
                },
              },
            ],
          },
          { eval_time: '4m', alertname: 'LoyaltyLedgerDefects', exp_alerts: [] },
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
                    'The last deep refresh of orders completed (or, when none ever did, the one under way began) 2d 1h 0m 0s ago, so changes to its old records (refunds, late approvals and voids) are not reaching the mirror. Check `loyalty-sync status` and the sync\'s logs.',
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

  it('LoyaltyDeepRefreshOverdue fires for a first deep refresh under way for 48 hours that never completed, and not for one that did', async () => {
    const result = await ruleTests([
      {
        // A first deep refresh of orders began at 0 and keeps failing; activities' began at 0 too and completed at 10 hours.
        interval: '5m',
        input_series: [
          { series: 'loyalty_deep_refresh_started_timestamp_seconds{stream="orders"}', values: '0+0x600' },
          { series: 'loyalty_deep_refresh_started_timestamp_seconds{stream="activities"}', values: '0+0x120' },
          { series: 'loyalty_deep_refresh_last_success_timestamp_seconds{stream="activities"}', values: `_x120 ${10 * 3600}+0x480` },
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
                    'The last deep refresh of orders completed (or, when none ever did, the one under way began) 2d 1h 0m 0s ago, so changes to its old records (refunds, late approvals and voids) are not reaching the mirror. Check `loyalty-sync status` and the sync\'s logs.',
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

/** An alert promtool should see firing: the rule's labels (severity and what its expression keeps) and its rendered annotations. */
function alert(labels: Record<string, string>, summary: string, description: string) {
  return { exp_labels: { severity: 'warning', ...labels }, exp_annotations: { summary, description } };
}

/** Expects every case of `tests` to pass. */
async function expectRuleTests(tests: unknown[], options?: Parameters<typeof ruleTests>[1]): Promise<void> {
  const result = await ruleTests(tests, options);
  expect(result.output).toContain('SUCCESS');
  expect(result.code, result.output).toBe(0);
}

// promtool's clock starts at 0: a *_timestamp_seconds value of 0 means "at the start of the case".
describe('the alerts on syncs, the API, the queue and exports, under promtool test rules', () => {
  it('LoyaltySyncStale fires for a stream last synced over an hour ago once that has lasted 5 minutes, and not for one synced every minute', async () => {
    await expectRuleTests([
      {
        interval: '1m',
        input_series: [
          { series: 'loyalty_sync_last_success_timestamp_seconds{stream="orders"}', values: '0x80' },
          { series: 'loyalty_sync_last_success_timestamp_seconds{stream="customers"}', values: '0+60x80' },
        ],
        alert_rule_test: [
          // An hour exactly is not over an hour; over it from 61m, but not yet for 5 minutes at 65m.
          { eval_time: '60m', alertname: 'LoyaltySyncStale', exp_alerts: [] },
          { eval_time: '65m', alertname: 'LoyaltySyncStale', exp_alerts: [] },
          {
            eval_time: '70m',
            alertname: 'LoyaltySyncStale',
            exp_alerts: [alert({ stream: 'orders' }, 'loyalty-sync: orders has not synced for over an hour', 'The last successful sync of orders was 1h 10m 0s ago. Check the logs or `loyalty-sync status`.')],
          },
        ],
      },
    ]);
  });

  it('LoyaltySyncNeverSucceeded fires for a stream with runs and no success for an hour, and not for one that succeeded', async () => {
    await expectRuleTests([
      {
        interval: '1m',
        input_series: [
          { series: 'loyalty_sync_runs_total{stream="orders",outcome="failed"}', values: '0+1x90' },
          { series: 'loyalty_sync_runs_total{stream="customers",outcome="succeeded"}', values: '0+1x90' },
          { series: 'loyalty_sync_last_success_timestamp_seconds{stream="customers"}', values: '0+60x90' },
        ],
        alert_rule_test: [
          { eval_time: '59m', alertname: 'LoyaltySyncNeverSucceeded', exp_alerts: [] },
          {
            eval_time: '61m',
            alertname: 'LoyaltySyncNeverSucceeded',
            exp_alerts: [
              alert(
                { stream: 'orders' },
                'loyalty-sync: orders has never synced successfully',
                'For over an hour loyalty-sync has reported no successful sync of orders in its mirror, ever. Check the logs or `loyalty-sync status`: a refused key, an API that cannot be reached, or a first full read still running.',
              ),
            ],
          },
        ],
      },
    ]);
  });

  it('LoyaltyApiErrors fires when over 10% of requests end in a 5xx or without an answer for 10 minutes, and not at 5%', async () => {
    const requests = (status: string, perMinute: number) => ({ series: `loyalty_api_requests_total{endpoint="/v2/orders",status="${status}"}`, values: `0+${perMinute}x60` });
    await expectRuleTests([
      { interval: '1m', input_series: [requests('200', 100), requests('503', 5)], alert_rule_test: [{ eval_time: '40m', alertname: 'LoyaltyApiErrors', exp_alerts: [] }] },
      {
        interval: '1m',
        input_series: [requests('200', 80), requests('502', 10), requests('error', 10)],
        alert_rule_test: [
          { eval_time: '8m', alertname: 'LoyaltyApiErrors', exp_alerts: [] },
          {
            eval_time: '30m',
            alertname: 'LoyaltyApiErrors',
            exp_alerts: [alert({}, 'loyalty-sync: over 10% of API requests fail', '20% of requests to the Admin API ended in a 5xx or without an answer over the last 10 minutes (for a CronJob: in its last run).')],
          },
        ],
      },
    ]);
  });

  it("fires the API alerts for a CronJob too, whose runs push totals that stand still until the next run, and not for a run of a handful of requests", async () => {
    // Each run's totals, pushed to the program's group and held there: every run of the hour the same.
    const pushed = (name: string, labels: string, total: number) => ({ series: `${name}{job="loyalty_sync",program_id="7"${labels}}`, values: `${total}x60` });
    // A run pushes every 15 minutes: the group's push time moves with it.
    const pushedAt = { series: 'push_time_seconds{job="loyalty_sync",program_id="7"}', values: '0x14 900x15 1800x15 2700x15' };
    await expectRuleTests([
      {
        interval: '1m',
        input_series: [pushedAt, pushed('loyalty_api_requests_total', ',endpoint="/v2/orders",status="200"', 16), pushed('loyalty_api_requests_total', ',endpoint="/v2/orders",status="503"', 4)],
        alert_rule_test: [
          { eval_time: '5m', alertname: 'LoyaltyApiErrors', exp_alerts: [] },
          {
            eval_time: '30m',
            alertname: 'LoyaltyApiErrors',
            exp_alerts: [
              alert({ program_id: '7' }, 'loyalty-sync: over 10% of API requests fail', '20% of requests to the Admin API ended in a 5xx or without an answer over the last 10 minutes (for a CronJob: in its last run).'),
            ],
          },
        ],
      },
      {
        interval: '1m',
        input_series: [
          pushedAt,
          pushed('loyalty_api_requests_total', ',endpoint="/v2/orders",status="200"', 12),
          pushed('loyalty_api_requests_total', ',endpoint="/v2/orders",status="429"', 8),
          pushed('loyalty_api_rate_limited_total', '', 8),
        ],
        alert_rule_test: [
          {
            eval_time: '30m',
            alertname: 'LoyaltyApiRateLimitStorm',
            exp_alerts: [
              alert(
                { program_id: '7' },
                'loyalty-sync: the API answers 429 to many requests',
                '40% of requests were rate limited over the last 10 minutes (for a CronJob: in its last run); lower api.requestsPerSecond or find the other client sharing the limit.',
              ),
            ],
          },
        ],
      },
      {
        // A run with nothing new: one retried blip among a handful of requests.
        interval: '1m',
        input_series: [pushedAt, pushed('loyalty_api_requests_total', ',endpoint="/v2/orders",status="200"', 6), pushed('loyalty_api_requests_total', ',endpoint="/v2/orders",status="503"', 1)],
        alert_rule_test: [{ eval_time: '40m', alertname: 'LoyaltyApiErrors', exp_alerts: [] }],
      },
      {
        // A group no run pushes again (a run whose whoami failed named it "unknown"): it stops alerting after the hour.
        interval: '1m',
        input_series: [
          { series: 'push_time_seconds{job="loyalty_sync",program_id="unknown"}', values: '0x180' },
          { series: 'loyalty_api_requests_total{job="loyalty_sync",program_id="unknown",endpoint="/v2/orders",status="200"}', values: '16x180' },
          { series: 'loyalty_api_requests_total{job="loyalty_sync",program_id="unknown",endpoint="/v2/orders",status="503"}', values: '4x180' },
        ],
        alert_rule_test: [
          { eval_time: '30m', alertname: 'LoyaltyApiErrors', exp_alerts: [alert({ program_id: 'unknown' }, 'loyalty-sync: over 10% of API requests fail', '20% of requests to the Admin API ended in a 5xx or without an answer over the last 10 minutes (for a CronJob: in its last run).')] },
          { eval_time: '2h', alertname: 'LoyaltyApiErrors', exp_alerts: [] },
        ],
      },
    ]);
  });

  it('LoyaltyApiRateLimitStorm fires when over 30% of requests are answered 429 for 10 minutes, and not at 20%', async () => {
    const storm = (limitedPerMinute: number) => [
      { series: 'loyalty_api_requests_total{endpoint="/v2/orders",status="200"}', values: `0+${100 - limitedPerMinute}x60` },
      { series: 'loyalty_api_requests_total{endpoint="/v2/orders",status="429"}', values: `0+${limitedPerMinute}x60` },
      { series: 'loyalty_api_rate_limited_total', values: `0+${limitedPerMinute}x60` },
    ];
    await expectRuleTests([
      { interval: '1m', input_series: storm(20), alert_rule_test: [{ eval_time: '40m', alertname: 'LoyaltyApiRateLimitStorm', exp_alerts: [] }] },
      {
        interval: '1m',
        input_series: storm(40),
        alert_rule_test: [
          { eval_time: '8m', alertname: 'LoyaltyApiRateLimitStorm', exp_alerts: [] },
          {
            eval_time: '30m',
            alertname: 'LoyaltyApiRateLimitStorm',
            exp_alerts: [
              alert(
                {},
                'loyalty-sync: the API answers 429 to many requests',
                '40% of requests were rate limited over the last 10 minutes (for a CronJob: in its last run); lower api.requestsPerSecond or find the other client sharing the limit.',
              ),
            ],
          },
        ],
      },
    ]);
  });

  it('LoyaltyDeadJobs fires at once for a dead job, and not for queued ones', async () => {
    await expectRuleTests([
      {
        interval: '1m',
        input_series: [
          { series: 'loyalty_queue_jobs{state="queued"}', values: '5x20' },
          { series: 'loyalty_queue_jobs{state="dead"}', values: '0x9 2x10' },
        ],
        alert_rule_test: [
          { eval_time: '5m', alertname: 'LoyaltyDeadJobs', exp_alerts: [] },
          {
            eval_time: '10m',
            alertname: 'LoyaltyDeadJobs',
            exp_alerts: [
              alert(
                {},
                'loyalty-sync: 2 write job(s) are dead',
                'The API refused these writes for good. `loyalty-sync queue list --state dead` shows why; fix and `queue retry ID`, or `queue cancel ID`.',
              ),
            ],
          },
        ],
      },
    ]);
  });

  it('LoyaltyUnknownJobsAgeing fires once the oldest unknown job has been unknown for over a day', async () => {
    await expectRuleTests(
      [
        {
          interval: '5m',
          // Two reporters: the older job counts.
          input_series: [
            { series: 'loyalty_queue_oldest_unknown_timestamp_seconds{instance="a"}', values: '0x312' },
            { series: 'loyalty_queue_oldest_unknown_timestamp_seconds{instance="b"}', values: '36000x312' },
          ],
          alert_rule_test: [
            { eval_time: '24h', alertname: 'LoyaltyUnknownJobsAgeing', exp_alerts: [] },
            {
              eval_time: '25h',
              alertname: 'LoyaltyUnknownJobsAgeing',
              exp_alerts: [
                alert(
                  {},
                  'loyalty-sync: a write job has been unknown for over a day',
                  'Its outcome could not be proved for 1d 1h 0m 0s. Check it in the loyalty program and `queue retry ID` or `queue cancel ID`.',
                ),
              ],
            },
          ],
        },
      ],
      { evaluationInterval: '5m' },
    );
  });

  it('LoyaltyExportStale and LoyaltyExportNeverSucceeded fire 26 hours after the last export, or with none ever, and not while exports succeed', async () => {
    await expectRuleTests(
      [
        {
          interval: '5m',
          input_series: [{ series: 'loyalty_export_last_success_timestamp_seconds', values: '0x340' }],
          alert_rule_test: [
            { eval_time: '26h', alertname: 'LoyaltyExportStale', exp_alerts: [] },
            { eval_time: '27h', alertname: 'LoyaltyExportStale', exp_alerts: [alert({}, 'loyalty-sync: no export has succeeded for over 26 hours', 'The last successful export was 1d 3h 0m 0s ago.')] },
          ],
        },
        {
          interval: '5m',
          input_series: [{ series: 'loyalty_export_rows_total{table="orders",format="csv"}', values: '0x340' }],
          alert_rule_test: [
            { eval_time: '25h55m', alertname: 'LoyaltyExportNeverSucceeded', exp_alerts: [] },
            {
              eval_time: '26h',
              alertname: 'LoyaltyExportNeverSucceeded',
              exp_alerts: [
                alert(
                  {},
                  'loyalty-sync: no export has ever succeeded',
                  'For over 26 hours loyalty-sync has run without a successful export in its mirror, ever. Check the logs of the export job.',
                ),
              ],
            },
          ],
        },
        {
          interval: '5m',
          input_series: [
            { series: 'loyalty_export_rows_total{table="orders",format="csv"}', values: '0+500x340' },
            { series: 'loyalty_export_last_success_timestamp_seconds', values: '0+300x340' },
          ],
          alert_rule_test: [
            { eval_time: '27h', alertname: 'LoyaltyExportStale', exp_alerts: [] },
            { eval_time: '27h', alertname: 'LoyaltyExportNeverSucceeded', exp_alerts: [] },
          ],
        },
      ],
      { evaluationInterval: '5m' },
    );
  });

  it('LoyaltySyncDown fires when no target of the job is scraped at all (absent), and not for another job down', async () => {
    const down = {
      exp_labels: { severity: 'critical', job: 'loyalty-sync' },
      exp_annotations: {
        summary: 'loyalty-sync: the run process cannot be scraped',
        description: "Prometheus has had no answer from loyalty-sync's /metrics for 5 minutes: the process is down or unreachable.",
      },
    };
    await expectRuleTests(
      [
        {
          interval: '1m',
          input_series: [
            { series: 'up{job="loyalty-sync",instance="10.0.0.7:9464"}', values: '1x30' },
            { series: 'up{job="other",instance="10.0.0.8:9100"}', values: '0x30' },
          ],
          alert_rule_test: [{ eval_time: '20m', alertname: 'LoyaltySyncDown', exp_alerts: [] }],
        },
        {
          interval: '1m',
          input_series: [{ series: 'up{job="other",instance="10.0.0.8:9100"}', values: '1x30' }],
          alert_rule_test: [
            { eval_time: '4m', alertname: 'LoyaltySyncDown', exp_alerts: [] },
            { eval_time: '20m', alertname: 'LoyaltySyncDown', exp_alerts: [down] },
          ],
        },
      ],
      { rulesFile: RUN_RULES },
    );
  });
});

describe('the alert on a failed publication (issue 26), under promtool test rules', () => {
  it('LoyaltyExportPublicationFailed fires while the newest publication failure is newer than the last successful export, or there is no success at all', async () => {
    const failure = (values: string) => ({ series: 'loyalty_export_publication_last_failure_timestamp_seconds{job="loyalty_sync", program_id="7"}', values });
    const success = (values: string) => ({ series: 'loyalty_export_last_success_timestamp_seconds{job="loyalty_sync", program_id="7"}', values });
    const fires = [
      alert(
        {},
        'loyalty-sync: the last publication to the bucket (export.url) failed',
        "The newest export to the bucket failed after the last successful one, so its manifests/latest.json still names an older run. `loyalty-sync status` shows the error under Last publication; the next export publishes again.",
      ),
    ];
    const cases = [
      { name: 'failed after the last success', input: [failure('2000x10'), success('1000x10')], expected: fires },
      { name: 'failed, never succeeded', input: [failure('2000x10')], expected: fires },
      { name: 'succeeded after the last failure', input: [failure('1000x10'), success('2000x10')], expected: [] },
      { name: 'never failed', input: [success('1000x10')], expected: [] },
      // The next successful export clears it: the failure is older than the new success from then on.
      { name: 'a later success clears it', input: [failure('2000x10'), success('1000x4 3000x5')], expected: [] },
    ];
    await expectRuleTests(
      cases.map((entry) => ({
        name: entry.name,
        interval: '1m',
        input_series: entry.input,
        alert_rule_test: [{ eval_time: '9m', alertname: 'LoyaltyExportPublicationFailed', exp_alerts: entry.expected }],
      })),
    );
  });
});

describe('the alert on runs that keep skipping a held lease (issue 27), under promtool test rules', () => {
  it('LoyaltyStateLeaseSkipping fires once the newest run has skipped for 30 minutes with no save for an hour (or none ever), and not while the holder saves, once a run did the work, or for a run that never skips', async () => {
    // As the Pushgateway serves the CronJob's group: each push's values hold until the next one.
    const skips = (values: string) => ({ series: 'loyalty_state_lease_skips_total{job="loyalty_sync", program_id="7"}', values });
    const lastSave = (values: string) => ({ series: 'loyalty_state_last_save_timestamp_seconds{job="loyalty_sync", program_id="7"}', values });
    const fires = [
      alert(
        {},
        'loyalty-sync: runs keep skipping, and the state has not been saved for over an hour',
        "The newest runs of `once` found the state's lease held by another run, which has saved nothing for over an hour. `loyalty-sync status` names the holder and its lease's end: a run that is gone frees it within state.leaseSeconds; one that hangs but keeps renewing must be stopped.",
      ),
    ];
    await expectRuleTests([
      {
        name: 'the holder saved at 0, then hung: every run from 1m skips; a run at 101m does the work and saves',
        interval: '1m',
        input_series: [skips('0 1x100 0x49'), lastSave(`0x100 ${101 * 60}x49`)],
        alert_rule_test: [
          // Unsaved for an hour from 60m, then pending for 30 minutes.
          { eval_time: '89m', alertname: 'LoyaltyStateLeaseSkipping', exp_alerts: [] },
          { eval_time: '91m', alertname: 'LoyaltyStateLeaseSkipping', exp_alerts: fires },
          { eval_time: '105m', alertname: 'LoyaltyStateLeaseSkipping', exp_alerts: [] },
        ],
      },
      {
        name: 'a long run holds the lease and saves after each job: the others skip for hours',
        interval: '1m',
        input_series: [skips('0 1x200'), lastSave('0+60x200')],
        alert_rule_test: [{ eval_time: '200m', alertname: 'LoyaltyStateLeaseSkipping', exp_alerts: [] }],
      },
      {
        name: 'the state was never saved and every run skips',
        interval: '1m',
        input_series: [skips('1x60')],
        alert_rule_test: [
          { eval_time: '29m', alertname: 'LoyaltyStateLeaseSkipping', exp_alerts: [] },
          { eval_time: '31m', alertname: 'LoyaltyStateLeaseSkipping', exp_alerts: fires },
        ],
      },
      {
        name: 'a scraped run never skips, even when it has saved nothing for hours',
        interval: '1m',
        input_series: [
          { series: 'loyalty_state_lease_skips_total{job="loyalty-sync", instance="10.0.0.7:9464"}', values: '0x300' },
          { series: 'loyalty_state_last_save_timestamp_seconds{job="loyalty-sync", instance="10.0.0.7:9464"}', values: '0x300' },
        ],
        alert_rule_test: [{ eval_time: '300m', alertname: 'LoyaltyStateLeaseSkipping', exp_alerts: [] }],
      },
    ]);
  });
});

describe('the alert on a refused inbox file (issue 31), under promtool test rules', () => {
  it('LoyaltyInboxFileRefused fires 15 minutes after a push lists a refused file, and ends once a push no longer does', async () => {
    const inbox = (outcome: string, values: string) => ({ series: `loyalty_inbox_files{job="loyalty_sync", program_id="7", outcome="${outcome}"}`, values });
    const fires = (value: number) => [
      alert(
        {},
        'loyalty-sync: a file in the write inbox was refused and queued nothing',
        `${value} file(s) under the state's inbox/ were refused whole. \`loyalty-sync status\` lists them; the problems are in the .errors.txt file beside each. Put corrected bytes under the same name, or remove the file.`,
      ),
    ];
    await expectRuleTests([
      {
        name: 'a refused file from 10m, replaced by good bytes at 60m',
        interval: '1m',
        input_series: [inbox('refused', '0x9 1x50 0x30'), inbox('imported', '3x90'), inbox('duplicate', '1x90')],
        alert_rule_test: [
          { eval_time: '24m', alertname: 'LoyaltyInboxFileRefused', exp_alerts: [] },
          { eval_time: '26m', alertname: 'LoyaltyInboxFileRefused', exp_alerts: fires(1) },
          { eval_time: '62m', alertname: 'LoyaltyInboxFileRefused', exp_alerts: [] },
        ],
      },
      {
        name: 'imported files and duplicates alone never fire',
        interval: '1m',
        input_series: [inbox('refused', '0x120'), inbox('imported', '0+1x120'), inbox('duplicate', '2x120')],
        alert_rule_test: [{ eval_time: '120m', alertname: 'LoyaltyInboxFileRefused', exp_alerts: [] }],
      },
    ]);
  });
});
