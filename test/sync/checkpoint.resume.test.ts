import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runSync } from '../../src/sync/index.js';
import { freshMirror } from '../helpers/tempDir.js';
import { mirrorDiff, recordingLogger, testClient, testConfig } from '../helpers/sync.js';

let sim: SimulatorHandle | undefined;
afterEach(async () => {
  await sim?.close();
});

describe('checkpoints', () => {
  it('an aborted sync stops after the page in flight commits, and the next run resumes from its cursor', async () => {
    sim = await startSimulator({ seed: 4, size: 'small', pageOrder: 'newest-first' });
    const { db, path } = freshMirror();
    // Pages of 50: more of them than the 32 read ahead, so the stream cannot end within the group that stores the second.
    const pageSize = 50;
    const config = testConfig(sim, path, { api: { pageSize } });
    const stop = new AbortController();
    // Abort as soon as the second page is stored: the signal is checked right after each group is stored.
    let pagesLogged = 0;
    const logger = createLogger({
      level: 'debug',
      destination: new Writable({
        write(chunk: Buffer, _encoding, done) {
          if (chunk.toString().includes('"page stored"') && ++pagesLogged === 2) stop.abort();
          done();
        },
      }),
    });
    const client = testClient(config, logger);
    const first = await runSync({ db, client, config, logger, streams: ['transactions', 'customers'], signal: stop.signal });
    expect(first.ok).toBe(false);
    expect(first.streams.map((s) => [s.stream, s.status])).toEqual([
      ['transactions', 'interrupted'],
      ['customers', 'interrupted'],
    ]);
    // Pages fetched ahead may commit together with the second one; nothing after that group is stored.
    const pagesStored = first.streams[0].pages;
    expect(pagesStored).toBeGreaterThanOrEqual(2);
    const stored = db.prepare('SELECT count(*) FROM transactions').pluck().get();
    expect(stored).toBe(pagesStored * pageSize);
    expect(first.streams[1].pages).toBe(0);
    const state = db.prepare("SELECT cursor, cursor_pass, pass_state FROM sync_state WHERE stream = 'transactions'").get() as Record<string, string>;
    expect(state.cursor).toEqual(expect.any(String));
    expect(state.cursor_pass).toBe('new');
    expect(db.prepare("SELECT status FROM sync_runs WHERE stream = 'transactions'").pluck().get()).toBe('interrupted');

    const { logger: quiet, records } = recordingLogger('info');
    const second = await runSync({ db, client, config, logger: quiet, streams: ['transactions'] });
    await client.close();
    expect(second.ok).toBe(true);
    // The resumed plan reads only what follows its checkpoint; then the run's own plan re-reads just the id overlap.
    const remaining = (sim.truth('transactions') as unknown[]).length - pagesStored * pageSize;
    expect(second.streams[0]).toMatchObject({ inserted: remaining, updated: 0 });
    expect(second.streams[0].pages).toBeLessThanOrEqual(Math.ceil(remaining / pageSize) + 2);
    const resumed = db.prepare('SELECT requests FROM sync_runs WHERE run_id = ?').pluck().get(second.runId);
    expect(resumed).toBe(second.streams[0].pages);
    expect(records.some((r) => r.msg === 'resuming the unfinished run from its checkpoint')).toBe(true);
    expect(mirrorDiff(db, sim, 'transactions')).toEqual([]);
    db.close();
  });

  it('a stored cursor the API refuses falls back to the pass filters, with a warning', async () => {
    sim = await startSimulator({ seed: 4, size: 'tiny' });
    const { db, path } = freshMirror();
    const config = testConfig(sim, path);
    const plan = { passes: [{ kind: 'list', role: 'new', params: { since_id: 0 } }], refreshes: false };
    db.prepare("INSERT INTO sync_state (stream, pass_state, cursor, updated_at) VALUES ('orders', ?, 'expired-cursor', 'x')").run(JSON.stringify(plan));
    const { logger, records } = recordingLogger('warn');
    const client = testClient(config, logger);
    const report = await runSync({ db, client, config, logger, streams: ['orders'] });
    await client.close();
    expect(report.ok).toBe(true);
    expect(records.filter((r) => String(r.msg).startsWith('the API refused the stored cursor'))).toHaveLength(1);
    expect(mirrorDiff(db, sim, 'orders')).toEqual([]);
    db.close();
  });

  it('--full forgets the checkpoint and re-reads everything without duplicating rows', async () => {
    sim = await startSimulator({ seed: 4, size: 'tiny' });
    const { db, path } = freshMirror();
    const config = testConfig(sim, path);
    const { logger } = recordingLogger();
    const client = testClient(config, logger);
    await runSync({ db, client, config, logger });
    const full = await runSync({ db, client, config, logger, full: true });
    await client.close();
    expect(full.ok).toBe(true);
    for (const s of full.streams) {
      expect({ stream: s.stream, read: s.rowsRead, changed: s.inserted + s.updated }).toEqual({
        stream: s.stream,
        read: (sim.truth(s.stream) as unknown[]).length,
        changed: 0,
      });
    }
    db.close();
  });
});
