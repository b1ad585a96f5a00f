import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { parseSamples, type Sample } from './exposition.js';
import { tempDir } from './tempDir.js';

/** A Prometheus server or Pushgateway running on loopback for one test file. */
export interface PrometheusTool {
  /** http://127.0.0.1:PORT */
  url: string;
  /** What it logged, for a failing test's message. */
  log(): string;
  stop(): Promise<void>;
}

/**
 * Starts one of the binaries the global setup unpacked from Debian's packages on a free loopback port,
 * and resolves with the address it says it listens on once it has logged `ready` (Prometheus answers
 * 503 between listening and loading its configuration).
 */
function startTool(tool: 'prometheus' | 'pushgateway', args: string[], ready: RegExp): Promise<PrometheusTool> {
  const child = spawn(inject(tool), ['--web.listen-address=127.0.0.1:0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  return new Promise((resolve, reject) => {
    const collect = (chunk: string) => {
      log += chunk;
      const address = /msg="Listening on" address=(127\.0\.0\.1:\d+)/.exec(log)?.[1];
      if (address === undefined || !ready.test(log)) return;
      resolve({
        url: `http://${address}`,
        log: () => log,
        stop: async () => {
          if (child.exitCode === null) child.kill('SIGTERM');
          await exited;
        },
      });
    };
    child.stdout.setEncoding('utf8').on('data', collect);
    child.stderr.setEncoding('utf8').on('data', collect);
    child.on('error', (error) => reject(new Error(`${tool} could not be started from ${inject(tool)}: ${error.message}`)));
    void exited.then(() => reject(new Error(`${tool} exited before listening:\n${log}`)));
  });
}

/**
 * A Pushgateway that keeps its groups in memory only, behind basic auth when `users` maps names to
 * bcrypt hashes (its web config's basic_auth_users).
 */
export function startPushgateway(users?: Record<string, string>): Promise<PrometheusTool> {
  const args = ['--persistence.file='];
  if (users !== undefined) {
    const webConfig = join(tempDir('ls-pushgateway-'), 'web.yml');
    // JSON is YAML.
    writeFileSync(webConfig, JSON.stringify({ basic_auth_users: users }));
    args.push(`--web.config.file=${webConfig}`);
  }
  return startTool('pushgateway', args, /msg="Listening on"/);
}

/**
 * The samples a Pushgateway holds in one group, as they were pushed: without the gateway's own series
 * for the group (push_time_seconds, push_failure_time_seconds) and the labels it adds (the grouping key,
 * an empty instance).
 */
export async function pushedGroup(gateway: PrometheusTool, group: Record<string, string>, headers: Record<string, string> = {}): Promise<Sample[]> {
  const response = await fetch(`${gateway.url}/metrics`, { headers });
  if (response.status !== 200) throw new Error(`the Pushgateway answered ${response.status} to GET /metrics`);
  return parseSamples(await response.text())
    .filter((sample) => Object.entries(group).every(([key, value]) => sample.labels[key] === value))
    .filter((sample) => sample.name !== 'push_time_seconds' && sample.name !== 'push_failure_time_seconds')
    .map((sample) => {
      const labels = Object.fromEntries(Object.entries(sample.labels).filter(([key, value]) => !(key in group) && !(key === 'instance' && value === '')));
      return { ...sample, labels };
    });
}

/** A Prometheus server with this configuration (YAML or JSON), its data in a temp folder. */
export function startPrometheus(config: unknown): Promise<PrometheusTool> {
  const dir = tempDir('ls-prometheus-');
  const configFile = join(dir, 'prometheus.yml');
  writeFileSync(configFile, JSON.stringify(config));
  return startTool('prometheus', [`--config.file=${configFile}`, `--storage.tsdb.path=${join(dir, 'data')}`], /msg="Server is ready to receive web requests\."/);
}
