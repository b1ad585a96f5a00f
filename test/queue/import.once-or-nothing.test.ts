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
      { line: 3, field: 'merchant_id', message: '".." is not valid; expected non-empty text without spaces at either end, other than . or ..' },
      { line: 4, field: 'platform', message: '"." is not valid; expected non-empty text without spaces at either end, other than . or ..' },
    ],
  });
  expect(listJobs(db)).toHaveLength(0);
});

test('a CRLF file whose quoted cell holds a CRLF names each later row by the line it starts on', () => {
  const text = 'customer_merchant_id,points,reason\r\nC1,5,"two\r\nlines"\r\n\r\nC2,abc,x\r\nC3,3,"a\r\nb"\r\nC4,four,y\r\n';
  const result = importCsv(db, { kind: 'add_points', file: 'points.csv', text, now: new Date() });
  expect(result).toEqual({
    ok: false,
    problems: [
      { line: 5, field: 'points', message: '"abc" is not valid; expected a non-zero whole number' },
      { line: 8, field: 'points', message: '"four" is not valid; expected a non-zero whole number' },
    ],
  });
  const good = importCsv(db, { kind: 'add_points', file: 'points.csv', text: text.replace('abc', '2').replace('four', '4'), now: new Date() });
  expect(good).toMatchObject({ ok: true, created: 4 });
  expect(listJobs(db).map((j) => j.source)).toEqual(['points.csv:2', 'points.csv:5', 'points.csv:6', 'points.csv:8']);
  // The cells keep their own line breaks.
  expect(listJobs(db).map((j) => j.payload.reason)).toEqual(['two\r\nlines', 'x', 'a\r\nb', 'y']);
});

test('an id padded with a space, as a spreadsheet cell brings it, is refused by name; free text keeps its spaces', () => {
  const text = ['customer_merchant_id,points,reason', 'C1 ,7, spaced reason', ' C2,8,x', 'C3,9, spaced reason'].join('\n');
  const result = importCsv(db, { kind: 'add_points', file: 'points.csv', text, now: new Date() });
  expect(result).toEqual({
    ok: false,
    problems: [
      { line: 2, field: 'customer_merchant_id', message: '"C1 " is not valid; expected non-empty text without spaces at either end, other than . or ..' },
      { line: 3, field: 'customer_merchant_id', message: '" C2" is not valid; expected non-empty text without spaces at either end, other than . or ..' },
    ],
  });
  expect(listJobs(db)).toHaveLength(0);
  const order = ['merchant_id,customer_id,customer_email,total,total_shipping,total_paid,payment_status,number', 'o-1,c-1,a@example.com,10.00,0,10.00,paid,1001 '].join('\n');
  expect(importCsv(db, { kind: 'create_order', file: 'orders.csv', text: order, now: new Date() })).toEqual({
    ok: false,
    problems: [{ line: 2, field: 'number', message: '"1001 " is not valid; expected non-empty text without spaces at either end' }],
  });
  expect(importCsv(db, { kind: 'add_points', file: 'points.csv', text: 'customer_merchant_id,points,reason\nC3,9, spaced reason\n', now: new Date() })).toMatchObject({ ok: true, created: 1 });
  expect(listJobs(db).map((j) => j.payload)).toEqual([{ customer_merchant_id: 'C3', points: 9, reason: ' spaced reason' }]);
});

test('an impossible date (31 February) is refused, not rolled over to March and sent', () => {
  const text = ['platform,merchant_id,status,date', 'custom,rev-1,approved,2026-02-31T10:00:00Z', 'custom,rev-2,approved,2026-02-28T24:00:00Z', 'custom,rev-3,approved,2024-02-29T10:00:00Z'].join('\n');
  const result = importCsv(db, { kind: 'update_review', file: 'reviews.csv', text, now: new Date() });
  expect(result).toEqual({
    ok: false,
    problems: [
      { line: 2, field: 'date', message: '"2026-02-31T10:00:00Z" is not valid; expected an ISO 8601 date or timestamp such as 2026-03-01T12:00:00Z' },
      { line: 3, field: 'date', message: '"2026-02-28T24:00:00Z" is not valid; expected an ISO 8601 date or timestamp such as 2026-03-01T12:00:00Z' },
    ],
  });
  expect(listJobs(db)).toHaveLength(0);
});

test('a CSV saved as Windows-1252 is refused whole, naming its line, with nothing queued (CLI, exit 2); as UTF-8 it imports', async () => {
  const file = join(dir, 'points.csv');
  const latin1 = Buffer.concat([Buffer.from('customer_merchant_id,points,reason\nC1,15,ok\nC2,15,Caf'), Buffer.from([0xe9]), Buffer.from(' cr'), Buffer.from([0xe9]), Buffer.from('dit\n')]);
  writeFileSync(file, latin1);
  const env = cliEnv({ baseUrl: 'http://127.0.0.1:9', apiKey: 'unused', dbPath });
  const bad = await runCli(['queue', 'import', file, '--kind', 'add_points'], env);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('line 3: file: the file is not UTF-8 text (it was saved in another encoding, such as Windows-1252); expected it saved as UTF-8 (in Excel: "CSV UTF-8")\n');
  expect(listJobs(db)).toHaveLength(0);

  writeFileSync(file, 'customer_merchant_id,points,reason\nC1,15,ok\nC2,15,Café crédit\n');
  const good = await runCli(['queue', 'import', file, '--kind', 'add_points'], env);
  expect(good.code).toBe(0);
  expect(listJobs(db).map((j) => j.payload.reason)).toEqual(['ok', 'Café crédit']);
});
