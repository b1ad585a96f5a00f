import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tempDir.js';

describe('run --metrics-listen with an address it cannot use', () => {
  const dir = tempDir('loyalty-listen-');
  const env = { LOYALTY_API_KEY: 'k', LOYALTY_DB: join(dir, 'mirror.db'), LOYALTY_EXPORT_DIR: join(dir, 'exports') };
  let taken: Server;
  let takenPort: number;
  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    takenPort = (taken.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

  it('exits 2 naming the value when the address is not HOST:PORT', async () => {
    const result = await runCli(['run', '--metrics-listen', 'localhost'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('loyalty-sync: --metrics-listen is "localhost"; expected HOST:PORT such as 0.0.0.0:9464 or 127.0.0.1:9464.\n');
  });

  it('exits 2 naming the value when the port is out of range', async () => {
    const result = await runCli(['run', '--metrics-listen', '127.0.0.1:70000'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('"127.0.0.1:70000"; the port must be from 0 to 65535');
  });

  it('exits 2 naming the value when the port is taken', async () => {
    const result = await runCli(['run', '--metrics-listen', `127.0.0.1:${takenPort}`], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`loyalty-sync: --metrics-listen is "127.0.0.1:${takenPort}", but that port is already in use.\n`);
  });

  it('exits 2 naming the variable when LOYALTY_METRICS_LISTEN is bad', async () => {
    const result = await runCli(['run'], { env: { ...env, LOYALTY_METRICS_LISTEN: '9464' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('loyalty-sync: Config key "runtime.metricsListen" (or LOYALTY_METRICS_LISTEN) is "9464"; expected HOST:PORT such as 0.0.0.0:9464 or 127.0.0.1:9464.\n');
  });

  it('exits 2 when the configured port is taken, naming where the value came from', async () => {
    const result = await runCli(['run'], { env: { ...env, LOYALTY_METRICS_LISTEN: `127.0.0.1:${takenPort}` } });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`loyalty-sync: runtime.metricsListen (or LOYALTY_METRICS_LISTEN) is "127.0.0.1:${takenPort}", but that port is already in use.\n`);
  });
});
