import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { STORE_KINDS, useStateStore } from './stateStore.js';

/** Nothing listens on port 9 of loopback (discard): every call fails to connect. */
const UNREACHABLE_API = 'http://127.0.0.1:9';

describe.each(STORE_KINDS)('once with state.url in a %s, when the API cannot be reached', (kind) => {
  const store = useStateStore({ seed: 31, size: 'tiny' }, kind);
  /** Few, quick retries: the API never answers. */
  const apiDown = { LOYALTY_BASE_URL: UNREACHABLE_API, LOYALTY_API__RETRY__ATTEMPTS: '1', LOYALTY_API__RETRY__MIN_DELAY_MS: '10', LOYALTY_API__RETRY__MAX_DELAY_MS: '20' };
  const exportsOf = (dir: string) => readdirSync(join(dir, 'exports', 'manifests')).filter((file) => file.endsWith('.json'));

  it('still exports from the restored mirror, prints FAIL sync and SKIP push, warns once that the binding went unchecked, and exits 1', async () => {
    const first = store.freshRun('down');
    expect((await runCli(['sync'], first)).code).toBe(0);

    const run = store.freshRun('down', apiDown);
    const once = await runCli(['once'], run);
    expect(once.code, once.stderr).toBe(1);
    const steps = once.stdout.trim().split('\n').map((line) => line.split(':')[0].replace(/ +/, ' '));
    expect(steps).toEqual(['FAIL sync', 'SKIP push', 'ok export']);
    // The rows the first run saved: the mirror was restored from the state although no API answered.
    expect(once.stdout).toMatch(/^ok +export: \d+ files, [1-9]\d* rows/m);
    expect(exportsOf(run.dir).length).toBeGreaterThan(0);
    const warnings = once.stderr.split('\n').filter((line) => line.includes('could not check which program the state at'));
    expect(warnings).toHaveLength(1);
    // The state stays the one the first run created: restored, and released for the next run.
    expect((await runCli(['once'], store.freshRun('down'))).code).toBe(0);
  });

  it('lets queue additions and export work without asking any API who it serves', async () => {
    expect((await runCli(['sync'], store.freshRun('offline'))).code).toBe(0);
    const run = store.freshRun('offline', apiDown);
    const queued = await runCli(['queue', 'add-points', '--customer', 'C1', '--points', '5', '--reason', 'offline'], run);
    expect(queued.code, queued.stderr).toBe(0);
    const exported = await runCli(['export'], run);
    expect(exported.code, exported.stderr).toBe(0);
    expect(queued.stderr + exported.stderr).not.toContain('could not check which program');
  });

  it('creates a new state bound to no program when no API says which, and a later run with the API binds nothing else to it', async () => {
    const once = await runCli(['once'], store.freshRun('unbound', apiDown));
    expect(once.code, once.stderr).toBe(1);
    expect(once.stdout).toMatch(/^ok +export: /m);
    const record = JSON.parse((await store.getBytes('unbound/state/state.json')).toString('utf8')) as { program: unknown };
    expect(record.program).toBeNull();
    expect((await runCli(['once'], store.freshRun('unbound'))).code).toBe(0);
  });
});
