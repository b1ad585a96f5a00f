import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { acquireLock } from '../../src/runtime/lock.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runSync } from '../../src/sync/index.js';
import { runCli, sentences } from '../helpers/cli.js';
import { freshMirror } from '../helpers/tempDir.js';
import { recordingLogger, testClient, testConfig } from '../helpers/sync.js';
import { verifyCli } from './helpers.js';

let sim: SimulatorHandle | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe('verify on the command line', () => {
  it('refuses bad usage with one sentence and exit 2', async () => {
    const { path } = freshMirror();
    const env = { LOYALTY_API_KEY: 'k', LOYALTY_BASE_URL: 'http://127.0.0.1:9', LOYALTY_DB: path };
    const cases: Array<[string[], string]> = [
      [['--requests', '0'], 'loyalty-sync: --requests is 0; expected a whole number from 1 to 9007199254740991.\n'],
      [['--requests', 'many'], 'loyalty-sync: --requests is "many"; expected a whole number.\n'],
      [['--stream', 'invoices'], 'loyalty-sync: --stream is "invoices"; expected one of customers, orders, activities, transactions, unsubscribes.\n'],
      [['--full', '--requests', '5'], 'loyalty-sync: verify: --full compares every row and takes no budget; give either --full or --requests N, not both.\n'],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(['verify', ...args], { env });
      expect([args, result.code, result.stderr, result.stdout]).toEqual([args, 2, message, '']);
    }
  });

  it('exits 1 naming the stream when the API cannot be reached', async () => {
    const { path } = freshMirror();
    const result = await runCli(['verify', '--stream', 'transactions', '--requests', '2'], {
      env: { LOYALTY_API_KEY: 'k', LOYALTY_BASE_URL: 'http://127.0.0.1:9', LOYALTY_DB: path, LOG_LEVEL: 'silent' },
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^transactions .* FAILED: /m);
    expect(result.stdout).not.toMatch(/\n\s+at /);
  });

  it('runs beside a holder of the writer lock; only --repair needs it', async () => {
    sim = await startSimulator({ seed: 2, size: 'tiny' });
    const { db, path } = freshMirror();
    const config = testConfig(sim, path);
    const { logger } = recordingLogger();
    const client = testClient(config, logger);
    expect((await runSync({ db, client, config, logger })).ok).toBe(true);
    await client.close();
    const lock = await acquireLock({ db, dbPath: path, command: 'run', leaseMs: 60_000, logger: createLogger({ level: 'silent' }) });
    try {
      const plain = await verifyCli(sim, path, ['--full']);
      expect(plain.code).toBe(0);
      const repair = await verifyCli(sim, path, ['--full', '--repair']);
      expect(repair.code).toBe(1);
      expect(sentences(repair.stderr)).toMatch(/^loyalty-sync: .*run/);
      expect(repair.report).toBeNull();
    } finally {
      lock.release();
    }
    // Both runs were recorded: the plain one, then the refused one never started.
    expect(db.prepare('SELECT mode, repair, status, ok FROM verify_runs').all()).toEqual([{ mode: 'full', repair: 0, status: 'succeeded', ok: 1 }]);
    db.close();
  });
});
