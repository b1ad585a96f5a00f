import { mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { openDatabase } from '../../src/db/open.js';
import { createLogger } from '../../src/log.js';
import { acquireLock, LockBusyError, LockLostError, readLockHolder } from '../../src/runtime/lock.js';
import { runCli } from '../helpers/cli.js';
import { startCli } from '../helpers/process.js';

let sim: SimulatorHandle;
const dir = mkdtempSync(join(tmpdir(), 'ls-lock-'));
const dbPath = join(dir, 'mirror.db');
const configFile = join(dir, 'config.json');

beforeAll(async () => {
  sim = await startSimulator({ seed: 3, size: 'tiny' });
  // Schedules that never fire during the test: the `run` process only holds the lock.
  writeFileSync(
    configFile,
    JSON.stringify({
      runtime: { lockLeaseSeconds: 4 },
      schedule: { sync: '0 0 1 1 *', refresh: '0 0 1 1 *', push: '0 0 1 1 *', export: '0 0 1 1 *' },
    }),
  );
});
afterAll(async () => sim.close());

const env = () => ({ LOYALTY_API_KEY: sim.keys.full, LOYALTY_BASE_URL: sim.url, LOYALTY_DB: dbPath, LOYALTY_EXPORT_DIR: join(dir, 'exports') });

describe('single instance', () => {
  it('refuses a second process while the first runs, and takes over at once when the SIGKILLed holder’s pid is gone', async () => {
    const first = startCli(['--config', configFile, 'run'], env());
    await first.waitForLine((line) => line.msg === 'schedules started');

    for (const command of ['once', 'sync', 'push']) {
      const refused = await runCli(['--config', configFile, command], { env: env() });
      expect(refused.code, `${command}: ${refused.stderr}`).toBe(1);
      expect(refused.stderr).toMatch(new RegExp(`another loyalty-sync \\(run, pid ${first.child.pid} on .*\\) holds ${dbPath.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} since \\d{4}-`));
    }
    const status = await runCli(['--config', configFile, 'status', '--json'], { env: env() });
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.stringify(JSON.parse(status.stdout))).toContain(`"pid":${first.child.pid}`);

    first.child.kill('SIGKILL');
    await first.exited;

    // Same host, dead pid: no need to wait for the lease.
    const second = startCli(['--config', configFile, 'run'], env());
    await second.waitForLine((line) => typeof line.msg === 'string' && line.msg.includes(`taking over the writer lock of pid ${first.child.pid}, which no longer runs on this host`));
    await second.waitForLine((line) => line.msg === 'schedules started');
    second.child.kill('SIGTERM');
    expect((await second.exited).code, second.stderr()).toBe(0);

    const after = await runCli(['--config', configFile, 'sync'], { env: env() });
    expect(after.code, after.stderr).toBe(0);
  });
});

describe('a second run on the same mirror', () => {
  it('is not ready: /readyz and /healthz answer 503 naming the lock holder, as its log does, until the holder stops', async () => {
    const first = startCli(['--config', configFile, 'run', '--metrics-listen', '127.0.0.1:0'], env());
    const firstServing = await first.waitForLine((line) => typeof line.msg === 'string' && line.msg.startsWith('serving /metrics'));
    await first.waitForLine((line) => line.msg === 'schedules started');
    const second = startCli(['--config', configFile, 'run', '--metrics-listen', '127.0.0.1:0'], env());
    const serving = await second.waitForLine((line) => typeof line.msg === 'string' && line.msg.startsWith('serving /metrics'));
    const waiting = await second.waitForLine((line) => typeof line.msg === 'string' && line.msg.endsWith('Waiting for it.'));
    try {
      const mirror = openDatabase(dbPath, { readonly: true });
      const holder = readLockHolder(mirror);
      mirror.close();
      const { pid, hostname: host, command, acquiredAt } = holder ?? {};
      expect({ pid, host, command }).toEqual({ pid: first.child.pid, host: hostname(), command: 'run' });
      const named = `another loyalty-sync (run, pid ${first.child.pid} on ${hostname()}) holds the mirror's writer lock since ${acquiredAt}; waiting for it\n`;
      expect(waiting.holder).toMatchObject({ pid, hostname: host, command, acquiredAt });
      expect(waiting.msg).toContain(`another loyalty-sync (run, pid ${first.child.pid} on ${hostname()}) holds ${dbPath} since ${acquiredAt}`);

      const base = `http://127.0.0.1:${String(serving.port)}`;
      for (const path of ['/readyz', '/healthz']) {
        const answer = await fetch(`${base}${path}`);
        expect({ path, status: answer.status, body: await answer.text() }).toEqual({ path, status: 503, body: named });
      }
      expect((await fetch(`http://127.0.0.1:${String(firstServing.port)}/readyz`)).status).toBe(200);

      first.child.kill('SIGTERM');
      expect((await first.exited).code, first.stderr()).toBe(0);
      await second.waitForLine((line) => line.msg === 'schedules started');
      expect(await (await fetch(`${base}/readyz`)).text()).toBe('ready\n');
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
    } finally {
      first.child.kill('SIGKILL');
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });
});

describe('a run waiting for the lock', () => {
  it('stopped by SIGTERM while it waits, exits 0 saying nothing ran, and leaves the holder alone', async () => {
    const first = startCli(['--config', configFile, 'run'], env());
    await first.waitForLine((line) => line.msg === 'schedules started');
    const second = startCli(['--config', configFile, 'run'], env());
    try {
      await second.waitForLine((line) => typeof line.msg === 'string' && line.msg.endsWith('Waiting for it.'));
      second.child.kill('SIGTERM');
      const { code } = await second.exited;
      expect(code, second.stderr()).toBe(0);
      expect(second.lines.some((line) => line.msg === 'received SIGTERM while waiting for the writer lock; nothing ran')).toBe(true);
      expect(first.child.exitCode).toBeNull();
      first.child.kill('SIGTERM');
      expect((await first.exited).code, first.stderr()).toBe(0);
    } finally {
      first.child.kill('SIGKILL');
      second.child.kill('SIGKILL');
    }
  });
});

describe('the writer lock lease', () => {
  it('makes a process wait for a holder on another host, and take over once that holder stops renewing', async () => {
    const db = openDatabase(join(dir, 'lease.db'));
    const logger = createLogger({ level: 'silent' });
    const leaseMs = 1500;
    const expiresAt = new Date(Date.now() + leaseMs).toISOString();
    // A holder on another machine: its pid cannot be checked from here, so only its lease counts.
    db.prepare(
      `INSERT INTO instance_lock (name, token, pid, hostname, command, acquired_at, heartbeat_at, expires_at)
       VALUES ('writer', 'other', 4242, 'another-host', 'run', ?, ?, ?)`,
    ).run(new Date().toISOString(), new Date().toISOString(), expiresAt);

    await expect(acquireLock({ db, dbPath: 'lease.db', command: 'sync', leaseMs, logger })).rejects.toBeInstanceOf(LockBusyError);
    expect(readLockHolder(db)?.hostname).toBe('another-host');

    const lock = await acquireLock({ db, dbPath: 'lease.db', command: 'run', leaseMs, logger, wait: true });
    const takenAt = new Date().toISOString();
    expect(takenAt >= expiresAt).toBe(true);
    expect(readLockHolder(db)).toMatchObject({ pid: process.pid, command: 'run' });
    lock.release();
    expect(readLockHolder(db)).toBeNull();
    db.close();
  });

  it('tells its holder when another process took the lock over, so the holder stops working', async () => {
    const db = openDatabase(join(dir, 'lost.db'));
    const logger = createLogger({ level: 'silent' });
    const lock = await acquireLock({ db, dbPath: 'lost.db', command: 'run', leaseMs: 300, logger });
    // What a process on another host does once it believes the lease ran out.
    db.prepare("UPDATE instance_lock SET token = 'thief', hostname = 'another-host'").run();
    await new Promise<void>((resolve) => lock.lost.addEventListener('abort', () => resolve(), { once: true }));
    expect(lock.lost.reason).toBeInstanceOf(LockLostError);
    lock.release();
    expect(readLockHolder(db)?.hostname).toBe('another-host');
    db.close();
  });
});

describe('a writer lock left under this process\'s own pid (pid 1 in a restarted container)', () => {
  it('is taken over at once when this process does not hold it, and refused while it does', async () => {
    const db = openDatabase(join(dir, 'same-pid.db'));
    const logger = createLogger({ level: 'silent' });
    const options = { db, dbPath: join(dir, 'same-pid.db'), command: 'sync', leaseMs: 60_000, logger };
    try {
      // What a killed previous process with the same pid left: a live lease, this host, this pid, its own token.
      const stamp = new Date().toISOString();
      db.prepare(
        `INSERT INTO instance_lock (name, token, pid, hostname, command, acquired_at, heartbeat_at, expires_at) VALUES ('writer', 'previous-run', ?, ?, 'once', ?, ?, ?)`,
      ).run(process.pid, hostname(), stamp, stamp, new Date(Date.now() + 60_000).toISOString());
      const lock = await acquireLock(options);
      expect(readLockHolder(db)?.pid).toBe(process.pid);
      await expect(acquireLock(options)).rejects.toBeInstanceOf(LockBusyError);
      lock.release();
      expect(readLockHolder(db)).toBeNull();
    } finally {
      db.close();
    }
  });
});
