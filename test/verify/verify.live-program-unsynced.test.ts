import { sentences } from '../helpers/cli.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { freshMirror } from '../helpers/tempDir.js';
import { syncMirror, verifyCli } from './helpers.js';

let sim: SimulatorHandle | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe('verify of a live program', () => {
  it('counts rows added and changed after the sync as unsynced, not as differences, and exits 0', async () => {
    sim = await startSimulator({ seed: 8, size: 'small' });
    const { db, path } = freshMirror();
    await syncMirror(sim, db, path);
    db.close();

    // Three hours of a live program: new customers, orders, activities and transactions (some visible
    // late, below ids already synced), activities approved and voided, customers edited, orders refunded,
    // addresses added to and removed from the unsubscribe list.
    sim.tick(3);

    for (const args of [['--full'], ['--requests', '30']]) {
      const verified = await verifyCli(sim, path, args);
      expect(sentences(verified.stderr)).toBe('');
      expect(verified.code).toBe(0);
      expect(verified.report?.ok).toBe(true);
      for (const stream of verified.report!.streams) {
        expect([stream.stream, stream.missing_count, stream.extra_count, stream.stale_count]).toEqual([stream.stream, 0, 0, 0]);
      }
      if (args[0] === '--full') {
        // Every stream changed during those hours, and each change was told apart from damage.
        expect(verified.report!.streams.map((s) => [s.stream, s.unsynced > 0])).toEqual(
          ['customers', 'orders', 'activities', 'transactions', 'unsubscribes'].map((stream) => [stream, true]),
        );
      }
    }
  });
});
