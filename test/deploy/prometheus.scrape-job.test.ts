import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DEFAULT_METRICS_PORT, METRICS_PATH } from '../../src/metrics/server.js';
import { promtool } from '../helpers/exposition.js';
import { tempDir } from '../helpers/tempDir.js';

interface Labelled {
  metadata: { name: string; labels?: Record<string, string> };
}
interface Service extends Labelled {
  spec: { selector: Record<string, string>; ports: Array<{ name: string; port: number; targetPort: string | number }> };
}
interface ServiceMonitor extends Labelled {
  apiVersion: string;
  kind: string;
  spec: { jobLabel?: string; selector: { matchLabels: Record<string, string> }; endpoints: Array<{ port: string; path: string }> };
}
interface PodTemplate {
  metadata: { labels: Record<string, string> };
  spec: { containers: Array<{ ports?: Array<{ name: string; containerPort: number }> }> };
}
interface Rules {
  groups: Array<{ name: string; rules: Array<{ alert: string; expr: string; annotations: Record<string, string> }> }>;
}

const path = (name: string) => fileURLToPath(new URL(`../../deploy/${name}`, import.meta.url));
const load = <T>(name: string): T => parse(readFileSync(path(name), 'utf8')) as T;

const service = load<Service>('kubernetes/service.yaml');
const monitor = load<ServiceMonitor>('kubernetes/servicemonitor.yaml');
const runPod = load<{ spec: { template: PodTemplate } }>('kubernetes/deployment.yaml').spec.template;
const cronPod = load<{ spec: { jobTemplate: { spec: { template: PodTemplate } } } }>('kubernetes/cronjob.yaml').spec.jobTemplate.spec.template;
const commonRules = load<Rules>('prometheus/loyalty-sync.rules.yml').groups.flatMap((group) => group.rules);
const runRules = load<Rules>('prometheus/loyalty-sync-run.rules.yml').groups.flatMap((group) => group.rules);

const selects = (selector: Record<string, string>, labels: Record<string, string> = {}) => Object.entries(selector).every(([key, value]) => labels[key] === value);

/**
 * The job label the Prometheus Operator gives the series a ServiceMonitor scrapes: the value of the
 * Service's label named by jobLabel, else the Service's name.
 */
function scrapeJob(): string {
  const fromLabel = monitor.spec.jobLabel === undefined ? undefined : service.metadata.labels?.[monitor.spec.jobLabel];
  return fromLabel ?? service.metadata.name;
}

describe('the scrape of the run and the rules that watch it', () => {
  it('reach the run pod through a Service and a ServiceMonitor, on the port and path the code serves', () => {
    expect(monitor.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(monitor.kind).toBe('ServiceMonitor');
    expect(selects(monitor.spec.selector.matchLabels, service.metadata.labels)).toBe(true);
    expect(selects(service.spec.selector, runPod.metadata.labels)).toBe(true);
    // A CronJob pod has no /metrics to scrape and must never become an endpoint.
    expect(selects(service.spec.selector, cronPod.metadata.labels)).toBe(false);
    const [endpoint] = monitor.spec.endpoints;
    expect(endpoint.path).toBe(METRICS_PATH);
    const port = service.spec.ports.find((entry) => entry.name === endpoint.port);
    const containerPort = runPod.spec.containers[0].ports?.find((entry) => entry.name === port?.targetPort)?.containerPort;
    expect(containerPort).toBe(DEFAULT_METRICS_PORT);
  });

  it("select the run by the ServiceMonitor's job, and no other rule depends on a job or instance", () => {
    const job = scrapeJob();
    expect(job).toBe('loyalty-sync');
    const [down] = runRules;
    expect(runRules.map((rule) => rule.alert)).toEqual(['LoyaltySyncDown']);
    const selectors = [...down.expr.matchAll(/up\{([^}]*)\}/g)].map((match) => match[1]);
    expect(selectors.length).toBeGreaterThan(0);
    for (const selector of selectors) expect(selector).toBe(`job="${job}"`);
    // The common rules hold for the run's scrape and the CronJob's Pushgateway group (job loyalty_sync) alike.
    for (const rule of commonRules) expect(rule.expr, rule.alert).not.toMatch(/\b(job|instance)\s*(=|!=|=~|!~)/);
  });

  it('stays quiet while the scraped run answers and fires when it does not (promtool test rules)', async () => {
    const dir = tempDir('ls-rules-test-');
    const series = `up{job="${scrapeJob()}", instance="10.0.0.7:${DEFAULT_METRICS_PORT}"}`;
    const tests = {
      rule_files: [path('prometheus/loyalty-sync-run.rules.yml')],
      evaluation_interval: '1m',
      tests: [
        { interval: '1m', input_series: [{ series, values: '1x30' }], alert_rule_test: [{ eval_time: '20m', alertname: 'LoyaltySyncDown', exp_alerts: [] }] },
        {
          interval: '1m',
          input_series: [{ series, values: '0x30' }],
          alert_rule_test: [
            {
              eval_time: '20m',
              alertname: 'LoyaltySyncDown',
              // Its annotations hold no template, so they are expected as written.
              exp_alerts: [{ exp_labels: { severity: 'critical', job: scrapeJob(), instance: `10.0.0.7:${DEFAULT_METRICS_PORT}` }, exp_annotations: runRules[0].annotations }],
            },
          ],
        },
      ],
    };
    const testFile = join(dir, 'loyalty-sync-run.test.yml');
    writeFileSync(testFile, JSON.stringify(tests));
    const result = await promtool(['test', 'rules', testFile]);
    expect(result.output).toContain('SUCCESS');
    expect(result.code, result.output).toBe(0);
  });
});
