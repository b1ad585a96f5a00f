import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriftEntry } from '../../src/drift/index.js';
import type { Manifest } from '../../src/export/index.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tempDir.js';

/** The drift warnings among a CLI run's log lines (JSON records on stderr). */
function driftWarnings(stderr: string): Array<{ stream: string; kind: string; path: string; example: string }> {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; drift?: { stream: string; kind: string; path: string; example: string } })
    .filter((record) => record.level === 40 && record.drift !== undefined)
    .map((record) => record.drift!);
}

async function statusDrift(env: Record<string, string>): Promise<DriftEntry[]> {
  const status = await runCli(['status', '--json'], { env });
  expect(status.code).toBe(0);
  return (JSON.parse(status.stdout) as { schema_drift: DriftEntry[] }).schema_drift;
}

describe('schema drift met while syncing', () => {
  let sim: SimulatorHandle;
  let env: Record<string, string>;
  const firstSync = { stderr: '' };
  beforeAll(async () => {
    sim = await startSimulator({ seed: 4, size: 'tiny' });
    const dir = tempDir('loyalty-drift-');
    env = { LOYALTY_BASE_URL: sim.url, LOYALTY_API_KEY: sim.keys.full, LOYALTY_DB: join(dir, 'mirror.db'), LOYALTY_EXPORT_DIR: join(dir, 'exports'), LOG_LEVEL: 'warn' };
    const sync = await runCli(['sync'], { env });
    expect(sync.code).toBe(0);
    firstSync.stderr = sync.stderr;
  });
  afterAll(async () => {
    await sim.close();
  });

  it('streams whose records match the spec report none', async () => {
    const drift = await statusDrift(env);
    for (const stream of ['orders', 'activities', 'transactions', 'unsubscribes']) expect(drift.filter((entry) => entry.stream === stream)).toEqual([]);
    // The simulator gives some customers a field the spec does not show (its README): it is found, and only it.
    expect(drift.map((entry) => `${entry.stream} ${entry.kind} ${entry.path}`)).toEqual(['customers field marketing_consent']);
    expect(driftWarnings(firstSync.stderr).map((warning) => warning.path)).toEqual(['marketing_consent']);
  });

  it('an unlisted field and an unlisted enum value show in status --json, once in the logs, and in the manifest', async () => {
    sim.setServedDrift({ unlistedField: true, unlistedEnumValue: true });
    const orders = sim.truth('orders') as Array<{ id: number; payment_status: string; customer: { email: string } }>;
    const authorized = orders.filter((order) => order.payment_status === 'authorized').length;
    expect(authorized).toBeGreaterThan(0);

    const first = await runCli(['sync', '--full', '--stream', 'orders'], { env });
    expect(first.code).toBe(0);
    const second = await runCli(['sync', '--full', '--stream', 'orders'], { env });
    expect(second.code).toBe(0);
    // One warning each, the first time; the second sync meets them again and only counts them.
    expect(driftWarnings(first.stderr)).toEqual([
      { stream: 'orders', kind: 'field', path: 'customer_note', example: expect.stringContaining('***@') as string },
      { stream: 'orders', kind: 'enum_value', path: 'payment_status', example: 'authorized' },
    ]);
    expect(driftWarnings(second.stderr)).toEqual([]);

    const drift = (await statusDrift(env)).filter((entry) => entry.stream === 'orders');
    expect(drift.map((entry) => [entry.kind, entry.path, entry.example])).toEqual([
      ['enum_value', 'payment_status', 'authorized'],
      ['field', 'customer_note', expect.stringMatching(/^Leave at the back door; questions to \*\*\*@example\.com$/)],
    ]);
    const [enumValue, field] = drift;
    // Each full sync read every order at least once.
    expect(field.count).toBeGreaterThanOrEqual(2 * orders.length);
    expect(enumValue.count).toBeGreaterThanOrEqual(2 * authorized);
    expect(field.last_seen_at > field.first_seen_at).toBe(true);
    for (const order of orders) expect(JSON.stringify(drift)).not.toContain(order.customer.email);

    const text = await runCli(['status'], { env });
    expect(text.stdout).toMatch(/^Schema drift\n.*\n(.*\n)*orders\s+field\s+customer_note\s+Leave at the back door/m);

    const exported = await runCli(['export', '--format', 'csv'], { env });
    expect(exported.code).toBe(0);
    const manifest = JSON.parse(readFileSync(join(env.LOYALTY_EXPORT_DIR, 'manifests', 'latest.json'), 'utf8')) as Manifest;
    expect(Object.keys(manifest.schemaDrift).sort()).toEqual(['activities', 'customers', 'orders', 'transactions', 'unsubscribes']);
    expect(manifest.schemaDrift.orders).toEqual(drift);
    expect(manifest.schemaDrift.transactions).toEqual([]);
  });

  it('--help of status names the schema drift section', async () => {
    const help = await runCli(['status', '--help'], { env });
    expect(help.stdout).toContain('schema drift: fields the API spec does not list');
  });
});
