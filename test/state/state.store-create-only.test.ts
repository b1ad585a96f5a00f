import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { LOG_FORMAT, type LogEntry } from '../../src/state/leaseLog.js';
import { StateLog } from '../../src/state/stateLog.js';
import { openStateStore } from '../../src/state/store/openStateStore.js';
import { recordingLogger } from '../helpers/sync.js';
import { STORE_KINDS, useStateStore } from './stateStore.js';

/** Writers racing for one name at once: the requests (or link calls) overlap in flight. */
const WRITERS = 12;

describe.each(STORE_KINDS)('create-only writes of the state in a %s', (kind) => {
  const store = useStateStore({ seed: 32, size: 'tiny' }, kind);
  const open = async (prefix: string) => {
    Object.assign(process.env, store.processEnv());
    return openStateStore(loadConfig({ env: store.freshRun(prefix).env }), recordingLogger().logger);
  };

  it('let exactly one of many writers racing for a name create it, and keep its bytes', async () => {
    const objects = await open('race');
    const bodies = Array.from({ length: WRITERS }, (_, index) => Buffer.from(`writer ${index}\n`));
    const outcomes = await Promise.all(bodies.map((body) => objects.putCreateOnly('state/log/000000000001.json', body)));
    expect(outcomes.filter((outcome) => outcome === 'created')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'exists')).toHaveLength(WRITERS - 1);
    const winner = bodies[outcomes.indexOf('created')];
    expect(await objects.readBytes('state/log/000000000001.json')).toEqual(winner);
  });

  it('let exactly one of many runs appending after the same entry take the lease', async () => {
    const objects = await open('append');
    const log = new StateLog(objects);
    const entry = (index: number): Omit<LogEntry, 'seq'> => ({
      format: LOG_FORMAT,
      kind: 'take',
      writeId: randomUUID(),
      holder: { id: `race:${index}`, host: 'race', pid: index, command: 'once' },
      leaseUntil: new Date(Date.now() + 60_000).toISOString(),
      writtenAt: new Date().toISOString(),
      manifest: null,
    });
    const results = await Promise.all(Array.from({ length: WRITERS }, (_, index) => log.append(entry(index), null)));
    const written = results.filter((result) => result.written);
    expect(written).toHaveLength(1);
    expect((await log.head(true))?.writeId).toBe(written[0].written ? written[0].entry.writeId : null);
  });
});
