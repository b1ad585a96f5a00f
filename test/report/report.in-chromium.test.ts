import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tempDir.js';
import { ledgerMirror, type LedgerMirror } from '../export/models/ledgerMirror.js';

const run = promisify(execFile);

/** The page's figures as the browser's DOM holds them after load: data-figure → data-value. */
function figuresOf(dom: string): Map<string, string> {
  const figures = new Map<string, string>();
  for (const match of dom.matchAll(/data-figure="([^"]*)" data-value="([^"]*)"/g)) figures.set(unescape(match[1]), unescape(match[2]));
  return figures;
}

function unescape(text: string): string {
  return text.replaceAll('&quot;', '"').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
}

/** Where Chromium itself connects with a blank page open, whatever the flags (measured: Chromium 150, Debian 12). */
const BROWSER_SERVICE_HOSTS = ['accounts.google.com', 'www.google.com', 'clients2.google.com'];

/** The hosts of requests the proxy saw (`GET http://host/…` or `CONNECT host:443`). */
function hosts(requests: readonly string[]): Set<string> {
  return new Set(requests.map((request) => request.replace(/^CONNECT /, 'CONNECT http://').split(' ')[1]).map((url) => new URL(url).hostname));
}

describe('report --out FILE.html, opened in headless Chromium', () => {
  let mirror: LedgerMirror;
  let page: string;
  let dom: string;
  let proxy: Server;
  let proxied: string[] = [];
  /** What the browser requests by itself (time, accounts) with a blank page open: not the page's doing. */
  let ownRequests: string[] = [];
  const dir = tempDir('report-');

  beforeAll(async () => {
    mirror = await ledgerMirror(11);
    // A customer's balance moved without a transaction: the page must show the defect the reconciliation found.
    const [customer] = mirror.sim.truth('customers') as Array<{ id: number }>;
    mirror.sim.moveBalances([{ customerId: customer.id, approved: 25 }]);
    // A defect once the program has run past sync.idOverlapHours (2) after the move: no late transaction explains it then.
    mirror.sim.tick(3);
    await mirror.sync();
    const env = { LOYALTY_DB: mirror.path, LOYALTY_PROGRAM__TIME_ZONE: 'America/New_York', LOYALTY_LEDGER__POINT_VALUE: '0.01' };
    expect((await runCli(['verify', '--ledger'], { env })).code).toBe(1);
    page = join(dir, 'points.html');
    const written = await runCli(['report', '--out', page], { env });
    expect(written.code, written.stderr).toBe(0);

    // Every request the browser makes to anything but the file goes through this loopback proxy, which refuses it and counts it.
    proxy = createServer((request, response) => {
      proxied.push(`${request.method} ${request.url}`);
      response.writeHead(502).end();
    }).on('connect', (request, socket) => {
      proxied.push(`CONNECT ${request.url}`);
      socket.destroy();
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const port = (proxy.address() as AddressInfo).port;
    const chromium = [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-extensions',
      '--disable-default-apps',
      '--disable-domain-reliability',
      '--disable-client-side-phishing-detection',
      '--no-pings',
      '--disable-features=Translate,OptimizationHints,MediaRouter,NetworkTimeServiceQuerying,AutofillServerCommunication',
      `--user-data-dir=${join(dir, 'profile')}`,
      `--proxy-server=http://127.0.0.1:${port}`,
      '--proxy-bypass-list=<-loopback>',
      '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
    ];
    const url = pathToFileURL(page).href;
    await run(inject('chromium'), [...chromium, '--dump-dom', 'data:text/html,<p>blank</p>']);
    ownRequests = proxied;
    proxied = [];
    dom = (await run(inject('chromium'), [...chromium, '--dump-dom', url], { maxBuffer: 64 * 1024 * 1024 })).stdout;
    await run(inject('chromium'), [...chromium, '--window-size=1280,2600', '--hide-scrollbars', `--screenshot=${join(dir, 'points.png')}`, url]);
    if (process.env.REPORT_SCREENSHOT) readFileSync(join(dir, 'points.png')) && (await run('cp', [join(dir, 'points.png'), process.env.REPORT_SCREENSHOT]));
    // Three Chromium starts and a synced mirror: on a loaded 2-core machine they outlast the default hook time.
  }, 240_000);
  afterAll(async () => {
    await new Promise((resolve) => proxy?.close(resolve));
    await mirror?.close();
  });

  it('renders: the DOM after load holds the charts and every section', () => {
    expect(dom).toContain('<h1>Loyalty points report</h1>');
    expect(dom.match(/<svg /g)?.length).toBe(2);
    for (const heading of ['Outstanding points by day', 'Movements by month', "Members' share of revenue", 'Tiers', 'Reconciliation']) expect(dom).toContain(heading);
  });

  it('makes no request: the page names nothing outside it, and the browser sent nothing through the proxy', () => {
    const html = readFileSync(page, 'utf8');
    expect(html).not.toMatch(/:\/\/|<script|@import|url\(/i);
    // Every request went to the proxy, which answered none. Chromium's own service requests (time, sign-in), which
    // it makes with a blank page too, come and go with timing: set aside by host, and a page naming a host is refused above.
    const own = new Set([...BROWSER_SERVICE_HOSTS, ...hosts(ownRequests)]);
    expect([...hosts(proxied)].filter((host) => !own.has(host))).toEqual([]);
  });

  it("shows the ledger's figures: outstanding points and liability, movements, redemption, members' revenue, tiers, and the reconciliation's defect", () => {
    const figures = figuresOf(dom);
    const { db } = mirror;
    const last = db.prepare('SELECT day, approved_end, pending_end, liability_end FROM points_ledger_daily ORDER BY day DESC LIMIT 1').get() as { day: string; approved_end: number; pending_end: number; liability_end: string };
    expect(figures.get('last-day')).toBe(last.day);
    expect(figures.get('approved-outstanding')).toBe(String(last.approved_end));
    expect(figures.get('pending-outstanding')).toBe(String(last.pending_end));
    expect(figures.get('liability')).toBe(last.liability_end);

    const months = db.prepare("SELECT substr(day, 1, 7) AS month, sum(earned) AS earned, sum(redeemed) AS redeemed, sum(expired) AS expired FROM points_ledger_daily GROUP BY month").all() as Array<{ month: string; earned: number; redeemed: number; expired: number }>;
    expect(months.length).toBeGreaterThan(2);
    for (const month of months) {
      expect(figures.get(`earned-${month.month}`), month.month).toBe(String(month.earned));
      expect(figures.get(`redeemed-${month.month}`), month.month).toBe(String(month.redeemed));
      expect(figures.get(`expired-${month.month}`), month.month).toBe(String(month.expired));
    }
    const metrics = db.prepare('SELECT members, redemption_rate_30d AS rate, customers_by_tier AS tiers FROM program_metrics_daily ORDER BY day DESC LIMIT 1').get() as { members: number; rate: number; tiers: string };
    expect(figures.get('members')).toBe(String(metrics.members));
    expect(Number(figures.get('redemption-rate-30d'))).toBeCloseTo(metrics.rate, 12);
    for (const [tier, customers] of Object.entries(JSON.parse(metrics.tiers) as Record<string, number>)) expect(figures.get(`tier-${tier}`), tier).toBe(String(customers));
    const share = db
      .prepare("SELECT substr(day, 1, 7) AS month, sum(CAST(member_revenue AS REAL)) / sum(CAST(revenue AS REAL)) AS share FROM program_metrics_daily GROUP BY month HAVING sum(CAST(revenue AS REAL)) > 0 ORDER BY month DESC LIMIT 1")
      .get() as { month: string; share: number };
    expect(Number(figures.get(`member-revenue-share-${share.month}`))).toBeCloseTo(share.share, 12);
    // The metrics start with the first customers, before the first transaction: the page shows every month of them, and the
    // ledger's own last day still heads it.
    const firstDays = db.prepare('SELECT (SELECT min(day) FROM program_metrics_daily) AS metrics, (SELECT min(day) FROM points_ledger_daily) AS ledger').get() as { metrics: string; ledger: string };
    expect(firstDays.metrics < firstDays.ledger).toBe(true);
    const salesMonths = db.prepare('SELECT DISTINCT substr(day, 1, 7) FROM program_metrics_daily').pluck().all() as string[];
    expect(salesMonths.filter((month) => !figures.has(`member-revenue-share-${month}`))).toEqual([]);
    expect(figures.get('reconciliation')).toBe('defects');
    expect(figures.get('reconciliation-defects')).toBe('1');
  });

  it('exits 1 naming the path when the mirror is missing, and 2 with one sentence for a folder that does not exist', async () => {
    const missing = join(dir, 'no-such.db');
    const absent = await runCli(['report', '--out', join(dir, 'x.html')], { env: { LOYALTY_DB: missing } });
    expect(absent.code).toBe(1);
    expect(absent.stderr).toContain(missing);
    const badFolder = await runCli(['report', '--out', join(dir, 'nowhere', 'x.html')], { env: { LOYALTY_DB: mirror.path } });
    expect(badFolder.code).toBe(2);
    expect(badFolder.stderr.trim().split('\n')).toHaveLength(1);
    expect(badFolder.stderr).toContain(join(dir, 'nowhere'));
  });
});
