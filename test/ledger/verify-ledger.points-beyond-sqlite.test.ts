import { expect, it } from 'vitest';
import { runCli, sentences } from '../helpers/cli.js';
import { freshMirror } from '../helpers/tempDir.js';

// Each value is an integer the sync stores exactly (up to 2^53 − 1), but a broken gateway's can add up past the
// 2^63 SQLite sums: verify --ledger says so in one sentence, naming where to look, instead of "integer overflow".
it('transactions whose points add up past what SQLite sums stop verify --ledger with one sentence naming the largest', async () => {
  const { db, path } = freshMirror();
  db.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1100)
     INSERT INTO transactions (id, customer_id, points_approved, points_pending, resource, activity_state, created_at, raw, _synced_at, _change_seq)
     SELECT i, 1001, 9007199254740991, 0, 'points_import', NULL, '2026-03-01T10:00:00.000Z', '{}', '2026-03-01T10:00:00.000Z', 1 FROM n`,
  ).run();
  db.close();
  const result = await runCli(['verify', '--ledger'], { env: { LOYALTY_DB: path } });
  expect(result.code).toBe(1);
  expect(sentences(result.stderr)).toBe(
    "loyalty-sync: verify --ledger: a customer's transactions add up past 9,223,372,036,854,775,807 points, beyond what SQLite sums; the mirror holds points no program gives (the largest: transaction 1 of customer 1001, 9,007,199,254,740,991 points).\n",
  );
});

it('the smallest integer SQLite holds among them is named too, not met with the same bare overflow', async () => {
  const { db, path } = freshMirror();
  const insert = db.prepare(
    `INSERT INTO transactions (id, customer_id, points_approved, points_pending, resource, activity_state, created_at, raw, _synced_at, _change_seq)
     VALUES (?, 1001, ?, 0, 'points_import', NULL, '2026-03-01T10:00:00.000Z', '{}', '2026-03-01T10:00:00.000Z', 1)`,
  );
  insert.run(1, -9223372036854775808n);
  insert.run(2, -1);
  db.close();
  const result = await runCli(['verify', '--ledger'], { env: { LOYALTY_DB: path } });
  expect(result.code).toBe(1);
  expect(sentences(result.stderr)).toMatch(/^loyalty-sync: verify --ledger: a customer's transactions add up past 9,223,372,036,854,775,807 points, .*\(the largest: transaction 1 of customer 1001, /);
});
