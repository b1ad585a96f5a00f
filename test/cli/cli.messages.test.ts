import { existsSync, openSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { importCsv } from '../../src/queue/importCsv.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runCli, sentences } from '../helpers/cli.js';
import { freshMirror, tempDir } from '../helpers/tempDir.js';

let sim: SimulatorHandle;
const dir = tempDir('ls-messages-');

beforeAll(async () => {
  sim = await startSimulator({ seed: 9, size: 'tiny' });
});
afterAll(async () => sim.close());

const env = (name: string) => ({ LOYALTY_API_KEY: sim.keys.full, LOYALTY_BASE_URL: sim.url, LOYALTY_DB: join(dir, `${name}.db`), LOYALTY_EXPORT_DIR: join(dir, `${name}-exports`) });

describe('messages', () => {
  it('a damaged mirror is named, with LOYALTY_DB, not only "database disk image is malformed"', async () => {
    const { db, path } = freshMirror();
    db.close();
    // Page 1 keeps its 100-byte header and loses the schema's b-tree behind it.
    const fd = openSync(path, 'r+');
    writeSync(fd, Buffer.alloc(4000, 0xa5), 0, 4000, 100);
    closeSync(fd);
    const result = await runCli(['status'], { env: { LOYALTY_DB: path } });
    expect(result.code).toBe(1);
    expect(sentences(result.stderr)).toBe(`loyalty-sync: the mirror ${path} (db.path or LOYALTY_DB) is damaged or not a SQLite database: database disk image is malformed.\n`);
  });

  it('a --metrics-file in a folder that does not exist is refused before anything runs (exit 2)', async () => {
    const before = sim.stats().requests;
    const file = join(dir, 'no-such-folder', 'loyalty.prom');
    const result = await runCli(['once', '--metrics-file', file], { env: env('metrics') });
    expect(result.code).toBe(2);
    expect(sentences(result.stderr)).toBe(
      `loyalty-sync: --metrics-file is "${file}", but its folder ${join(dir, 'no-such-folder')} does not exist; expected a file path in a folder this user may write, such as /var/lib/node_exporter/textfile/loyalty_sync.prom.\n`,
    );
    expect(sim.stats().requests).toBe(before);
    expect(existsSync(join(dir, 'metrics.db'))).toBe(false);
  });

  it('every command refuses a plain-http base URL that is not loopback, with the same sentence as sync', async () => {
    const bad = { ...env('plain-http'), LOYALTY_BASE_URL: 'http://api.example.com' };
    const said = `loyalty-sync: Config key "api.baseUrl" (or LOYALTY_BASE_URL) is "http://api.example.com"; expected https, since plain http is allowed only for loopback (localhost, 127.0.0.0/8, [::1]).\n`;
    for (const args of [['sync'], ['status'], ['queue', 'list'], ['export'], ['whoami'], ['verify'], ['push']]) {
      const result = await runCli(args, { env: bad });
      expect([args, result.code, result.stderr]).toEqual([args, 2, said]);
    }
  });

  it('run refuses a cron field out of range, naming the key and the value (exit 2)', async () => {
    const file = join(dir, 'cron.json');
    writeFileSync(file, JSON.stringify({ schedule: { sync: '*/99 * * * *' } }));
    const result = await runCli(['--config', file, 'run'], { env: env('cron') });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('loyalty-sync: Config key "schedule.sync" is "*/99 * * * *", whose minute field step 99 is outside 1-59; expected a cron expression such as "*/15 * * * *".\n');
  });

  it('a job ID that is not a number names the positional argument, not a flag', async () => {
    for (const command of ['retry', 'cancel']) {
      const result = await runCli(['queue', command, 'abc'], { env: env('job-id') });
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(`loyalty-sync: queue ${command}: the job ID is "abc"; expected a job number (a whole number from 1), as "loyalty-sync queue list" shows.\n`);
    }
  });

  it('a wrong CSV header says "an add_points file"', () => {
    const db = openDatabase(':memory:');
    try {
      const result = importCsv(db, { kind: 'add_points', file: 'points.csv', text: 'customer,points\nc-1,5\n', now: new Date() });
      expect(result.ok).toBe(false);
      expect(result.ok ? '' : result.problems[0].message).toMatch(/; an add_points file has columns customer_merchant_id,points,reason and optionally /);
    } finally {
      db.close();
    }
  });
});
