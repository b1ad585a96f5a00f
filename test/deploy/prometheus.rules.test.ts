import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { parse, parseAllDocuments } from 'yaml';
import { promtool } from '../helpers/exposition.js';
import { exportedSeriesNames, metricNamesIn } from '../helpers/promql.js';

const RULES = fileURLToPath(new URL('../../deploy/prometheus/loyalty-sync.rules.yml', import.meta.url));
const RUN_RULES = fileURLToPath(new URL('../../deploy/prometheus/loyalty-sync-run.rules.yml', import.meta.url));
const rules = [RULES, RUN_RULES].flatMap((file) => (parse(readFileSync(file, 'utf8')) as { groups: Array<{ rules: Array<{ alert: string; expr: string }> }> }).groups.flatMap((group) => group.rules));

describe('the Prometheus rules files', () => {
  it('pass promtool check rules', async () => {
    const result = await promtool(['check', 'rules', RULES, RUN_RULES]);
    expect(result.output).toContain('SUCCESS: 8 rules found');
    expect(result.output).toContain('SUCCESS: 1 rules found');
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
