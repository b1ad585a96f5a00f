import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { exportedSeriesNames, metricNamesIn } from '../helpers/promql.js';

interface Panel {
  title: string;
  targets?: Array<{ expr: string }>;
}

interface Variable {
  name: string;
  type: string;
  query?: string | { query: string };
  includeAll?: boolean;
  allValue?: string;
}

const dashboard = JSON.parse(readFileSync(new URL('../../deploy/grafana/loyalty-sync.json', import.meta.url), 'utf8')) as {
  panels: Panel[];
  templating: { list: Variable[] };
};

/** The label matchers written right after each occurrence of `metric` in `expr` (empty when one has none). */
function matchersAfter(expr: string, metric: string): string[] {
  return [...expr.matchAll(new RegExp(`(?<![\\w:])${metric}(?![\\w:])(\\{[^}]*\\})?`, 'g'))].map((match) => match[1] ?? '');
}

describe('the Grafana dashboard', () => {
  it('queries only metric families the code exports, in every panel', async () => {
    const exported = await exportedSeriesNames();
    expect(dashboard.panels.length).toBeGreaterThan(0);
    for (const panel of dashboard.panels) {
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      for (const { expr } of panel.targets ?? []) {
        const names = metricNamesIn(expr);
        expect(names.length, `${panel.title}: ${expr}`).toBeGreaterThan(0);
        for (const name of names) expect(exported.has(name), `${panel.title}: ${name} is not exported`).toBe(true);
      }
    }
  });

  it('shows rows per stream, sync lag, API status, 429s, the queue, push outcomes, export rows and bytes, publications, schema drift, memory, the last verify, the deep refresh, the state in the bucket, its write inbox and the points ledger\'s reconciliation', () => {
    const queried = new Set(dashboard.panels.flatMap((panel) => (panel.targets ?? []).flatMap(({ expr }) => metricNamesIn(expr))));
    for (const family of [
      'loyalty_sync_rows_total',
      'loyalty_sync_last_success_timestamp_seconds',
      'loyalty_api_requests_total',
      'loyalty_api_rate_limited_total',
      'loyalty_queue_jobs',
      'loyalty_push_jobs_total',
      'loyalty_export_rows_total',
      'loyalty_export_bytes_total',
      'loyalty_export_publications_total',
      'loyalty_schema_drift_findings',
      'process_resident_memory_bytes',
      'loyalty_verify_differences',
      'loyalty_verify_last_run_timestamp_seconds',
      'loyalty_verify_last_run_ok',
      'loyalty_deep_refresh_last_success_timestamp_seconds',
      'loyalty_deep_refresh_pages',
      'loyalty_state_last_save_timestamp_seconds',
      'loyalty_state_lease_skips_total',
      'loyalty_inbox_files',
      'loyalty_ledger_defects',
    ]) {
      expect(queried.has(family), family).toBe(true);
    }
  });

  it('offers $job and $instance, read from a family every loyalty-sync process exports, instance within the chosen job', async () => {
    const exported = await exportedSeriesNames();
    const variable = (name: string) => dashboard.templating.list.find((entry) => entry.name === name);
    const queryOf = (entry: Variable | undefined) => (typeof entry?.query === 'string' ? entry.query : entry?.query?.query) ?? '';
    const job = variable('job');
    const instance = variable('instance');
    expect(job?.type).toBe('query');
    expect(instance?.type).toBe('query');
    expect(queryOf(job)).toMatch(/^label_values\((\w+), job\)$/);
    expect(exported.has(/^label_values\((\w+)/.exec(queryOf(job))![1])).toBe(true);
    expect(queryOf(instance)).toMatch(/^label_values\(\w+\{job=~"\$job"\}, instance\)$/);
    // "All" must match a Pushgateway group's empty instance too.
    for (const entry of [job, instance]) {
      expect(entry?.includeAll).toBe(true);
      expect(entry?.allValue).toBe('.*');
    }
  });

  it('filters every metric of every panel by the chosen job and instance', () => {
    for (const panel of dashboard.panels) {
      for (const { expr } of panel.targets ?? []) {
        for (const metric of metricNamesIn(expr)) {
          const matchers = matchersAfter(expr, metric);
          expect(matchers.length, `${panel.title}: ${metric}`).toBeGreaterThan(0);
          for (const found of matchers) {
            expect(found, `${panel.title}: ${expr}`).toContain('job=~"$job"');
            expect(found, `${panel.title}: ${expr}`).toContain('instance=~"$instance"');
          }
        }
      }
    }
  });

  it('reads metric names out of PromQL as the checks above rely on', () => {
    expect(metricNamesIn('histogram_quantile(0.95, sum by (le, endpoint) (rate(loyalty_api_request_duration_seconds_bucket[$__rate_interval])))')).toEqual([
      'loyalty_api_request_duration_seconds_bucket',
    ]);
    expect(metricNamesIn('time() - max by (stream) (a_b{x="y", z=~"5..|error"}) > 3600 or absent(up{job="j"})').sort()).toEqual(['a_b', 'up']);
  });
});
