import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startSwift } from '../scripts/swift-server.mjs';

/** Newest modification time of the files under `dir` whose names end with `suffix`; 0 when there are none. */
function newest(dir: string, suffix: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith(suffix)) latest = Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

/**
 * vitest runs the TypeScript sources, but the CLI tests' child processes and the sync's storage thread
 * run the build in dist/: a build older than the sources would test old code. `npm test` builds first;
 * a bare `npx vitest` after an edit is stopped here rather than quietly testing the previous build.
 */
function checkBuildIsCurrent(): void {
  let built = 0;
  try {
    built = newest('dist', '.js');
  } catch {
    // No dist/ at all: reported below.
  }
  if (built < newest('src', '.ts')) throw new Error('dist/ is older than src/ (or missing): run `npm run build` first, or `npm test`, which builds.');
}

/**
 * Runs one of the scripts that bring a test tool into the cache folder (a no-op when it is there) and
 * returns what it printed. A machine without apt-get stops the whole run with the script's sentence
 * naming what to install: a suite is never skipped for want of its tool.
 */
function bringTool(script: string): string {
  try {
    return execFileSync('bash', [script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(stderr || `${script} failed: ${(error as Error).message}`);
  }
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The S3 endpoint of the Swift server started once for the whole run (test/s3). */
    swift: { endpoint: string; accessKeyId: string; secretAccessKey: string };
    /** Path of the promtool binary that checks exposition and rules (test/metrics, test/deploy). */
    promtool: string;
    /** Path of the Prometheus server that scrapes a running `run` (test/deploy). */
    prometheus: string;
    /** Path of the Pushgateway that `once --pushgateway` pushes to (test/metrics). */
    pushgateway: string;
    /** Folder of the chdb package, the Delta engine the Delta tests open every table with (test/helpers/deltaEngine.ts). */
    chdb: string;
    /** Path of the headless Chromium launcher that opens `report`'s page (test/report). */
    chromium: string;
  }
}

/**
 * Brings Swift, promtool, Prometheus, the Pushgateway, chdb and Chromium into the cache folder when they are missing,
 * then starts one real S3-protocol server (OpenStack Swift) for every object-storage test of the run.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  checkBuildIsCurrent();
  bringTool('scripts/install-swift.sh');
  const prometheus = bringTool('scripts/install-prometheus.sh');
  for (const tool of ['promtool', 'prometheus', 'pushgateway'] as const) project.provide(tool, join(prometheus, tool));
  project.provide('chdb', bringTool('scripts/install-chdb.sh'));
  project.provide('chromium', join(bringTool('scripts/install-chromium.sh'), 'chromium'));
  const swift = await startSwift();
  project.provide('swift', { endpoint: swift.endpoint, accessKeyId: swift.accessKeyId, secretAccessKey: swift.secretAccessKey });
  return () => swift.stop();
}
