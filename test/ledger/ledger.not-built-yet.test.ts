import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { freshMirror, tempDir } from '../helpers/tempDir.js';

describe('a mirror whose points ledger was never built', () => {
  it('balances and report exit 1 saying to sync first, and write no page', async () => {
    // Migrated, never synced: the ledger's tables exist, empty, and no build is recorded.
    const { db, path } = freshMirror();
    db.close();
    const env = { LOYALTY_DB: path };
    const sentence = `The mirror ${path} holds no points ledger yet; run loyalty-sync sync to build it.\n`;

    const balances = await runCli(['balances', '--as-of', '2026-03-31'], { env });
    expect(balances.code).toBe(1);
    expect(balances.stderr).toBe(sentence);
    expect(balances.stdout).toBe('');

    const out = join(tempDir(), 'report.html');
    const report = await runCli(['report', '--out', out], { env });
    expect(report.code).toBe(1);
    expect(report.stderr).toBe(sentence);
    expect(existsSync(out)).toBe(false);
  });
});
