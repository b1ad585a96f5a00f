import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { promtool, type Sample } from './exposition.js';
import { tempDir } from './tempDir.js';

export const RULES_FILE = fileURLToPath(new URL('../../deploy/prometheus/loyalty-sync.rules.yml', import.meta.url));
const STEP_SECONDS = 300;

interface AlertRule {
  alert: string;
  expr: string;
}

/**
 * The alerts of the deploy kit's rules file that fire `afterSeconds` after a scrape, had every
 * scraped `loyalty_*` series kept its value since: `promtool test rules` over those series, expecting
 * no alert, so that promtool lists the ones that do fire. promtool's clock starts at 0, so Unix
 * times (`*_timestamp_seconds`) move onto it with the scrape at 0. Rules on `up` are left out: a
 * target's scrape state is not in the samples. Each alert reads `Name` or `Name{label="value",…}`
 * (without `severity`).
 */
export async function alertsFiring(samples: Sample[], scrapedAt: Date, afterSeconds: number): Promise<string[]> {
  const rules = (parse(readFileSync(RULES_FILE, 'utf8')) as { groups: Array<{ rules: AlertRule[] }> }).groups.flatMap((group) => group.rules);
  const watched = rules.filter((rule) => !/\bup\b/.test(rule.expr)).map((rule) => rule.alert);
  const steps = Math.ceil(afterSeconds / STEP_SECONDS) + 1;
  const scrapedAtSeconds = scrapedAt.getTime() / 1000;
  const inputSeries = samples
    .filter((sample) => sample.name.startsWith('loyalty_'))
    .map((sample) => {
      const value = sample.name.endsWith('_timestamp_seconds') ? sample.value - scrapedAtSeconds : sample.value;
      const labels = Object.entries({ job: 'loyalty-sync', instance: 'loyalty-sync:9464', ...sample.labels }).map(([key, text]) => `${key}=${JSON.stringify(text)}`);
      return { series: `${sample.name}{${labels.join(',')}}`, values: `${value.toFixed(3)}+0x${steps}` };
    });
  const dir = tempDir('loyalty-alerts-');
  const testFile = join(dir, 'alerts.test.yml');
  // JSON is YAML, and needs no quoting rules of its own.
  writeFileSync(
    testFile,
    JSON.stringify({
      rule_files: [RULES_FILE],
      evaluation_interval: '1m',
      tests: [
        {
          interval: `${STEP_SECONDS}s`,
          input_series: inputSeries,
          alert_rule_test: watched.map((alertname) => ({ eval_time: `${afterSeconds}s`, alertname, exp_alerts: [] })),
        },
      ],
    }),
  );
  const result = await promtool(['test', 'rules', testFile]);
  if (result.code === 0) return [];
  const firing = [...result.output.matchAll(/Labels:\{([^}]*)\}/g)].map((match) => {
    const labels = match[1].split(', ').filter((pair) => !pair.startsWith('severity='));
    const name = labels.find((pair) => pair.startsWith('alertname='));
    if (name === undefined) throw new Error(`promtool listed an alert without a name: ${match[0]}`);
    const rest = labels.filter((pair) => pair !== name);
    return `${JSON.parse(name.slice('alertname='.length)) as string}${rest.length > 0 ? `{${rest.join(',')}}` : ''}`;
  });
  if (firing.length === 0) throw new Error(`promtool test rules failed without listing alerts:\n${result.output}`);
  return firing.sort();
}
