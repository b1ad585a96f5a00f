import { join } from 'node:path';
import type { Config } from '../../../src/config.js';
import type { Db } from '../../../src/db/open.js';
import { startSimulator, type SimulatorHandle } from '../../../src/simulator/index.js';
import { runSync } from '../../../src/sync/index.js';
import { freshMirror } from '../../helpers/tempDir.js';
import { recordingLogger, testClient, testConfig } from '../../helpers/sync.js';

export interface LedgerMirror {
  sim: SimulatorHandle;
  db: Db;
  /** The mirror file. */
  path: string;
  /** The mirror's temp folder; the export folder is `exports` in it. */
  dir: string;
  config: Readonly<Config>;
  /** Syncs the simulator into the mirror; the sync brings the model tables up to date. */
  sync(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A mirror synced from the simulator over HTTP, so its model tables are built by the sync itself: a day is
 * New York's, and a point is worth 0.01, so liability_end holds money.
 */
export async function ledgerMirror(seed = 5): Promise<LedgerMirror> {
  const sim = await startSimulator({ size: 'small', seed });
  const { db, path, dir } = freshMirror();
  const config = testConfig(sim, path, { export: { dir: join(dir, 'exports') }, program: { timeZone: 'America/New_York' }, ledger: { pointValue: '0.01' } });
  const sync = async (): Promise<void> => {
    const { logger } = recordingLogger('warn');
    const client = testClient(config, logger);
    try {
      const report = await runSync({ db, client, config, logger });
      if (!report.ok) throw new Error(`sync failed: ${JSON.stringify(report.streams)}`);
    } finally {
      await client.close();
    }
  };
  await sync();
  return { sim, db, path, dir, config, sync, close: async () => { db.close(); await sim.close(); } };
}
