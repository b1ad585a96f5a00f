import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { openDatabase, type Db } from '../../src/db/open.js';
import { importCsv } from '../../src/queue/importCsv.js';
import { listJobs } from '../../src/queue/listJobs.js';
import { cliEnv, runCli } from './cli.js';

let dir: string;
let dbPath: string;
let db: Db;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'queue-import-'));
  dbPath = join(dir, 'mirror.db');
  db = openDatabase(dbPath);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const GOOD = [
  'customer_merchant_id,points,reason',
  'C1,100,"Welcome, new member"',
  'C2,-20,"Correction:',
  'duplicate credit"',
  'C1,100,"Welcome, new member"',
  '',
  'C3,5,Birthday',
].join('\n');

test('importing the same file twice queues its rows once; identical rows stay distinct jobs', () => {
  const first = importCsv(db, { kind: 'add_points', file: 'points.csv', text: GOOD, now: new Date() });
  expect(first).toEqual({ ok: true, created: 4, existing: 0, rows: 4 });
  // Sources name the physical line: a quoted cell spans lines 3-4 and line 6 is blank.
  expect(listJobs(db).map((j) => j.source)).toEqual(['points.csv:2', 'points.csv:3', 'points.csv:5', 'points.csv:7']);

  const again = importCsv(db, { kind: 'add_points', file: 'points.csv', text: GOOD, now: new Date() });
  expect(again).toEqual({ ok: true, created: 0, existing: 4, rows: 4 });
  expect(listJobs(db)).toHaveLength(4);
});

test('a file with a bad row on line 7 queues nothing and names line 7 (CLI, exit 2)', async () => {
  const file = join(dir, 'points.csv');
  const rows = ['customer_merchant_id,points,reason,idempotency_key', 'C1,1,a,', 'C2,2,b,', 'C3,3,c,', 'C4,4,d,', 'C5,5,e,', 'C6,ten,f,', 'C7,7,g,'];
  writeFileSync(file, `${rows.join('\n')}\n`);
  const env = cliEnv({ baseUrl: 'http://127.0.0.1:9', apiKey: 'unused', dbPath });

  const bad = await runCli(['queue', 'import', file, '--kind', 'add_points'], env);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('line 7: points: "ten" is not valid; expected a non-zero whole number');
  expect(listJobs(db)).toHaveLength(0);

  writeFileSync(file, `${rows.join('\n').replace('C6,ten', 'C6,6')}\n`);
  const good = await runCli(['queue', 'import', file, '--kind', 'add_points'], env);
  expect(good).toMatchObject({ code: 0 });
  expect(good.stdout).toContain('7 new, 0 already queued');
  const twice = await runCli(['queue', 'import', file, '--kind', 'add_points'], env);
  expect(twice.stdout).toContain('0 new, 7 already queued');
  expect(listJobs(db)).toHaveLength(7);
});

test('an unterminated quote names the line where it opened and says nothing after it could be read (CLI, exit 2)', async () => {
  const file = join(dir, 'points.csv');
  // Line 3 holds a cell that spans lines 3-4 and closes, line 5 one whose text ends with a quote and a
  // comma (`"",` before the closing quote); line 6 opens one that never closes.
  const rows = ['customer_merchant_id,points,reason', 'C1,1,a', 'C2,2,"two', 'lines"', 'C3,3,"said ""hi"","', 'C4,4,"never closed', 'C5,5,e', 'C6,6,f', 'C7,7,g'];
  writeFileSync(file, `${rows.join('\n')}\n`);
  const result = await runCli(['queue', 'import', file, '--kind', 'add_points'], cliEnv({ baseUrl: 'http://127.0.0.1:9', apiKey: 'unused', dbPath }));
  expect(result.code).toBe(2);
  expect(result.stderr).toContain(
    'line 6: file: a quoted cell opens on this line and is never closed, so nothing after it could be read; expected a closing " (a quote inside a quoted cell is written "")\n',
  );
  expect(listJobs(db)).toHaveLength(0);
});

test('unknown and missing header columns are named', () => {
  const result = importCsv(db, { kind: 'add_points', file: 'x.csv', text: 'customer,points,note\nC1,1,x\n', now: new Date() });
  expect(result.ok).toBe(false);
  if (!result.ok) {
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatchObject({ line: 1, field: 'header' });
    expect(result.problems[0].message).toMatch(/^unknown columns customer, note; missing columns customer_merchant_id, reason;/);
  }
});

test('an id that would change the URL path (. or ..) is refused with the row named, and nothing is queued', () => {
  const text = ['platform,merchant_id,status', 'custom,rev-1,approved', 'custom,..,approved', '.,rev-2,approved'].join('\n');
  const result = importCsv(db, { kind: 'update_review', file: 'reviews.csv', text, now: new Date() });
  expect(result).toEqual({
    ok: false,
    problems: [
      { line: 3, field: 'merchant_id', message: '".." is not valid; expected non-empty text other than . or ..' },
      { line: 4, field: 'platform', message: '"." is not valid; expected non-empty text other than . or ..' },
    ],
  });
  expect(listJobs(db)).toHaveLength(0);
});
