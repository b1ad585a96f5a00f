import type { StreamName } from '../../src/config.js';
import type { Db } from '../../src/db/open.js';
import type { SimulatorHandle } from '../../src/simulator/index.js';
import { runSync } from '../../src/sync/index.js';
import type { VerifyReport } from '../../src/verify/index.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { recordingLogger, testClient, testConfig } from '../helpers/sync.js';

/** Syncs `streams` (default: all) of `sim` into the mirror `db` at `path`, as each verify test starts: the sync must succeed. */
export async function syncMirror(sim: Pick<SimulatorHandle, 'url' | 'keys'>, db: Db, path: string, streams?: StreamName[]): Promise<void> {
  const config = testConfig(sim, path);
  const { logger } = recordingLogger();
  const client = testClient(config, logger);
  try {
    const report = await runSync({ db, client, config, logger, streams });
    if (!report.ok) throw new Error(`the sync before the verify failed: ${JSON.stringify(report.streams)}`);
  } finally {
    await client.close();
  }
}

/** `loyalty-sync verify ARGS --json` against `sim` and the mirror at `dbPath`; the parsed document beside the exit code. */
export async function verifyCli(sim: Pick<SimulatorHandle, 'url' | 'keys'>, dbPath: string, args: string[]): Promise<CliResult & { report: VerifyReport | null }> {
  const result = await runCli(['verify', ...args, '--json'], { env: { LOYALTY_API_KEY: sim.keys.full, LOYALTY_BASE_URL: sim.url, LOYALTY_DB: dbPath } });
  // Logs go to stderr: stdout holds the document alone, or nothing when the command failed before it.
  return { ...result, report: result.stdout.trim() === '' ? null : (JSON.parse(result.stdout) as VerifyReport) };
}

/** Per stream: the ids a report names, sorted, for comparison with the ids a test damaged. */
export function namedIds(report: VerifyReport): Record<string, { missing: Array<number | string>; extra: Array<number | string>; stale: Array<number | string> }> {
  const sorted = (ids: Array<number | string>) => [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(report.streams.map((s) => [s.stream, { missing: sorted(s.missing), extra: sorted(s.extra), stale: sorted(s.stale) }]));
}

/** Ids of `table` matching `where`, ascending. */
export function idsWhere(db: Db, table: string, where: string): number[] {
  return db.prepare(`SELECT id FROM ${table} WHERE ${where} ORDER BY id`).pluck().all() as number[];
}
