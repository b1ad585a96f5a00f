import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriftEntry } from '../../src/drift/index.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';
import { syncMirror } from './helpers.js';
import { freshMirror } from '../helpers/tempDir.js';

describe('verify and schema drift', () => {
  let sim: SimulatorHandle;
  const { db, path } = freshMirror();

  beforeAll(async () => {
    sim = await startSimulator({ seed: 5, size: 'tiny' });
    await syncMirror(sim, db, path, ['orders']);
    db.close();
  });
  afterAll(async () => sim.close());

  it('records what the API serves beyond the spec on the pages it reads, with one warning each', async () => {
    sim.setServedDrift({ unlistedField: true, unlistedEnumValue: true });
    // Without --json, so the warnings are logged beside the table.
    const verified = await runCli(['verify', '--full', '--stream', 'orders'], { env: { LOYALTY_API_KEY: sim.keys.full, LOYALTY_BASE_URL: sim.url, LOYALTY_DB: path } });
    // The orders gained a member, so the mirror holds them stale until the next sync: exit 1, and not the point here.
    expect(verified.code, verified.stderr).toBe(1);
    const warnings = verified.stderr
      .split('\n')
      .filter((line) => line.startsWith('{') && line.includes('"drift"'))
      .map((line) => (JSON.parse(line) as { drift: { kind: string; path: string } }).drift);
    expect(warnings.map((drift) => `${drift.kind} ${drift.path}`)).toEqual(['field customer_note', 'enum_value payment_status']);

    const status = await runCli(['status', '--json'], { env: { LOYALTY_DB: path } });
    const drift = (JSON.parse(status.stdout) as { schema_drift: DriftEntry[] }).schema_drift.filter((entry) => entry.stream === 'orders');
    expect(drift.map((entry) => [entry.kind, entry.path]).sort()).toEqual([
      ['enum_value', 'payment_status'],
      ['field', 'customer_note'],
    ]);
  });
});
