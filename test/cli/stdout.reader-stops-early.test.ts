import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { updateLedger } from '../../src/ledger/updateLedger.js';
import { CLI_PATH } from '../helpers/cli.js';
import { freshMirror } from '../helpers/tempDir.js';

/** Runs the CLI and closes its stdout after the first chunk, as `… | head -1` does. */
function runAndStopReading(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, ...args], { env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stdout.once('data', () => child.stdout.destroy());
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('a reader that stops early (balances … | head)', () => {
  it('ends the command without a stack trace', async () => {
    const { db, path } = freshMirror();
    // Far more than a pipe's 64 KiB of JSON, so the write is still under way when the reader goes.
    const insert = db.prepare(
      `INSERT INTO transactions (id, customer_id, points_approved, points_pending, resource, activity_state, created_at, raw, _synced_at, _change_seq)
       VALUES (?, ?, 10, 0, 'activity', 'approved', '2026-03-01T10:00:00.000Z', '{}', '2026-03-01T10:00:00.000Z', ?)`,
    );
    db.transaction(() => {
      for (let id = 1; id <= 20_000; id += 1) insert.run(id, id, id);
    })();
    updateLedger(db, { timeZone: 'UTC', pointValue: null }, new Date('2026-03-02T12:00:00Z'));
    db.close();
    const result = await runAndStopReading(['balances', '--as-of', '2026-03-01', '--format', 'json'], { LOYALTY_DB: path });
    expect(result.stderr).not.toContain('EPIPE');
    expect(result.stderr).not.toContain('    at ');
    expect(result.stderr).toBe('');
    // The output was not all delivered: not a success, as a filter killed by SIGPIPE is not.
    expect(result.code).toBe(1);
  });
});
