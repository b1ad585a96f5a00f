import { afterEach, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runSync } from '../../src/sync/index.js';
import { freshMirror } from '../helpers/tempDir.js';
import { recordingLogger, testClient, testConfig } from '../helpers/sync.js';

let sim: SimulatorHandle | undefined;
afterEach(async () => {
  await sim?.close();
});

it('logs one debug record per page, one summary per stream, and a missing field once per stream', async () => {
  sim = await startSimulator({ seed: 8, size: 'small' });
  const { db, path } = freshMirror();
  const config = testConfig(sim, path);
  const { logger, records } = recordingLogger('debug');
  const client = testClient(config, logger);
  const report = await runSync({ db, client, config, logger });
  await client.close();
  expect(report.ok).toBe(true);

  for (const s of report.streams) {
    const mine = records.filter((r) => r.stream === s.stream);
    expect(mine.filter((r) => r.msg === 'page stored')).toHaveLength(s.pages);
    const summaries = mine.filter((r) => r.level === 30 && r.msg === `${s.stream} sync succeeded`);
    expect(summaries).toHaveLength(1);
    expect(summaries[0]).toMatchObject({ runId: report.runId, rowsRead: s.rowsRead, pages: s.pages, requests: expect.any(Number) });
    expect(mine.filter((r) => String(r.msg).includes('lack fields')).length).toBeLessThanOrEqual(1);
  }
  // Activities without a flow are stored, with NULL in the flow columns and the record whole in raw.
  const flowless = db.prepare("SELECT flow_id, raw FROM activities WHERE json_extract(raw, '$.flow') IS NULL LIMIT 1").get() as { flow_id: number | null; raw: string };
  expect(flowless.flow_id).toBeNull();
  expect(JSON.parse(flowless.raw)).toHaveProperty('flow', null);
  db.close();
});
