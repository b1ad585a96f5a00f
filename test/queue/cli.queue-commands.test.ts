import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { pushCommand } from '../../src/cli/push.js';
import { queueCommand } from '../../src/cli/queue.js';
import type { CommandContext } from '../../src/cli/context.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/open.js';
import { createLogger } from '../../src/log.js';
import { cliEnv, runCli } from './cli.js';

let dir: string;
let dbPath: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'queue-cli-'));
  dbPath = join(dir, 'mirror.db');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `queue …` in this process, as the dispatcher does, capturing what it prints. */
async function queueCli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = { stdout: '', stderr: '' };
  const sink = (key: 'stdout' | 'stderr') =>
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        out[key] += chunk.toString();
        done();
      },
    });
  const config = loadConfig({ env: { LOYALTY_DB: dbPath, LOYALTY_API_KEY: 'unused', LOG_LEVEL: 'silent' } });
  const ctx: CommandContext = { config, logger: createLogger({ level: 'silent' }), stdout: sink('stdout'), stderr: sink('stderr') };
  const code = argv[0] === 'push' ? await pushCommand(argv.slice(1), ctx) : await queueCommand(argv, ctx);
  return { code, ...out };
}

test('the same command twice queues one job and says so (built CLI)', async () => {
  const env = cliEnv({ baseUrl: 'http://127.0.0.1:9', apiKey: 'unused-key', dbPath });
  const args = ['queue', 'add-points', '--customer', 'C1', '--points', '50', '--reason', 'Goodwill'];
  expect(await runCli(args, env)).toMatchObject({ code: 0, stdout: 'queued job 1: add_points for customer C1\n' });
  expect(await runCli(args, env)).toMatchObject({ code: 0, stdout: 'already queued as job 1 (state queued); nothing added\n' });
  const bad = await runCli(['queue', 'add-points', '--customer', 'C1', '--points', '1.5', '--reason', 'x'], env);
  expect(bad).toMatchObject({ code: 2, stderr: 'loyalty-sync: --points is "1.5"; expected a non-zero whole number.\n' });
});

test('a bad value is refused before anything is stored, in one sentence naming the flag, the value and what was expected', async () => {
  await expect(
    queueCli('create-order', '--merchant-id', 'O1', '--customer-id', 'C1', '--customer-email', 'a@example.com', '--total', '12,50', '--total-shipping', '0', '--total-paid', '0', '--payment-status', 'paid'),
  ).rejects.toThrow('--total is "12,50"; expected a decimal string such as 12.50.');
  await expect(queueCli('update-review', '--platform', 'custom', '--merchant-id', 'r1', '--status', 'approved', '--images-count', '1001')).rejects.toThrow(
    '--images-count is "1001"; expected a whole number from 0 to 1000.',
  );
  await expect(queueCli('update-review', '--platform', 'custom', '--merchant-id', 'r1', '--status', 'done')).rejects.toThrow(
    '--status is "done"; expected one of approved, flagged, pending, rejected.',
  );
  await expect(queueCli('claim-reward', '--customer', 'C1')).rejects.toThrow('--reward-id is required; expected a whole number >= 1.');
  // Refused before the mirror was even opened: no job, and no mirror file either.
  expect(existsSync(dbPath)).toBe(false);
});

test('create-order --file, list, cancel and retry', async () => {
  const order = join(dir, 'order.json');
  writeFileSync(order, JSON.stringify({ merchant_id: 'O9', customer_id: 'C9', customer_email: 'c9@example.com', total: '10.00', total_shipping: '0.00', total_paid: '10.00', payment_status: 'paid', discount_codes: ['SPRING'], guest: true }));
  expect((await queueCli('create-order', '--file', order)).stdout).toBe('queued job 1: create_order for order O9\n');
  expect((await queueCli('claim-reward', '--customer', 'C9', '--reward-id', '2', '--key', 'claim-9')).code).toBe(0);
  await expect(queueCli('claim-reward', '--customer', 'C9', '--reward-id', '3', '--key', 'claim-9')).rejects.toThrow(/--key key "claim-9" is already used by job 2/);

  const listed = JSON.parse((await queueCli('list', '--json', '--state', 'queued')).stdout) as Array<{ id: number; payload: unknown; idempotencyKey: string }>;
  expect(listed.map((j) => j.id)).toEqual([1, 2]);
  expect(listed[0].payload).toMatchObject({ discount_codes: ['SPRING'], guest: true });
  expect(listed[1].idempotencyKey).toBe('claim-9');
  expect((await queueCli('list')).stdout).toMatch(/^ID\s+STATE\s+KIND\s+TARGET\s+ATTEMPTS\s+WHEN\s+LAST ERROR\n1\s+queued\s+create_order\s+order O9\s+0 /);

  expect((await queueCli('cancel', '1')).stdout).toBe('job 1 cancelled\n');
  await expect(queueCli('cancel', '1')).rejects.toThrow('Job 1 is already cancelled.');

  // A claim whose outcome could not be proved: retrying it warns that it may apply twice.
  const db = openDatabase(dbPath);
  db.prepare(`UPDATE write_jobs SET state = 'unknown', attempts = 1 WHERE id = 2`).run();
  db.close();
  const retried = await queueCli('retry', '2');
  expect(retried).toMatchObject({ code: 0, stdout: 'job 2 queued again (was unknown)\n' });
  expect(retried.stderr).toContain('may already have been applied; sending it again may apply it twice');
  await expect(queueCli('retry', '2')).rejects.toThrow('Job 2 is queued; only dead or unknown jobs can be retried.');
  await expect(queueCli('cancel', '99')).rejects.toThrow('There is no job 99');
});

test('every queue subcommand and push print their usage with --help', async () => {
  for (const args of [['push'], ['queue'], ['add-points'], ['update-review'], ['delete-review'], ['create-order'], ['claim-reward'], ['import'], ['list'], ['retry'], ['cancel']]) {
    const result = await queueCli(...(args[0] === 'queue' ? [] : args), '--help');
    expect(result.code, args.join(' ')).toBe(0);
    expect(result.stdout, args.join(' ')).toMatch(/^Usage: loyalty-sync /);
  }
});
