import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/open.js';
import { createLogger } from '../../src/log.js';
import { getJob } from '../../src/queue/getJob.js';
import { pushDueJobs, type PushReport } from '../../src/queue/push/pushDueJobs.js';
import type { LedgerEntry } from '../../src/simulator/index.js';
import { startCli, type CliProcess } from '../helpers/process.js';
import { startRewritingProxy, type RewritingOptions } from '../helpers/rewritingProxy.js';
import { tempDir } from '../helpers/tempDir.js';
import { mirrorCustomers, queue, type SimCustomer } from './helpers.js';

const MINUTE = 60_000;
const YEAR = 365 * 24 * 60 * MINUTE;

/** `loyalty-sync simulate` itself, which loses the answer to every write it applies. */
let simulate: CliProcess;
let api: { url: string; key: string };
let customers: SimCustomer[];

/** The address and full key `simulate` prints once it listens. */
function listening(proc: CliProcess): Promise<{ url: string; key: string }> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(proc.stdout())?.[1];
      const key = /full key:\s+(\S+)/.exec(proc.stdout())?.[1];
      if (url !== undefined && key !== undefined) resolve({ url, key });
    };
    proc.child.stdout.on('data', check);
    void proc.exited.then(({ code }) => reject(new Error(`simulate exited (${code}) before listening: ${proc.stderr()}`)));
    check();
  });
}

beforeAll(async () => {
  simulate = startCli(['simulate', '--port', '0', '--size', 'tiny', '--seed', '9', '--faults', 'applyThenDrop=1'], {});
  api = await listening(simulate);
  customers = ((await (await fetch(`${api.url}/__sim/truth/customers`)).json()) as SimCustomer[]).filter((c) => !c.blocked);
});
afterAll(async () => {
  simulate.child.kill('SIGTERM');
  await simulate.exited;
});

let jobs = 0;

/**
 * Queues one add_points job for its own customer and reason, and pushes it once against `baseUrl`
 * with the worker's clock at `now`. The simulator applies the write and drops the connection.
 */
async function pushLostAnswer(baseUrl: string, now: () => Date): Promise<{ report: PushReport; state: string | undefined; reason: string }> {
  const n = jobs++;
  const dir = tempDir('ls-api-clock-');
  const db = openDatabase(join(dir, 'mirror.db'));
  const config = loadConfig({ env: { LOYALTY_API_KEY: api.key, LOYALTY_BASE_URL: baseUrl, LOYALTY_DB: join(dir, 'mirror.db'), LOG_LEVEL: 'silent' } });
  const logger = createLogger({ level: 'silent' });
  const client = createApiClient(config.api, logger);
  try {
    mirrorCustomers(db, [customers[n]]);
    const reason = `clock check ${n}`;
    const job = queue({ db, now }, 'add_points', { customer_merchant_id: customers[n].merchant_id, points: '40', reason });
    const report = await pushDueJobs({ db, client, config, logger, now });
    return { report, state: getJob(db, job.id)?.state, reason };
  } finally {
    await client.close();
    db.close();
  }
}

async function appliedWith(reason: string): Promise<LedgerEntry[]> {
  const ledger = (await (await fetch(`${api.url}/__sim/ledger`)).json()) as LedgerEntry[];
  return ledger.filter((entry) => entry.kind === 'add_points' && (entry.body as { reason?: string }).reason === reason);
}

describe('a points job whose answer was lost', () => {
  it('is proved against `simulate` by the transaction it created, stamped when it was applied, and never sent twice', async () => {
    const sentAt = Date.now();
    const { report, state, reason } = await pushLostAnswer(api.url, () => new Date());
    expect(report).toMatchObject({ sent: 1, succeeded: 1, reconciled: 1, unknown: 0 });
    expect(state).toBe('succeeded');
    const applied = await appliedWith(reason);
    expect(applied).toHaveLength(1);
    expect(Date.parse(applied[0].at)).toBeGreaterThanOrEqual(sentAt);
    expect(Date.parse(applied[0].at)).toBeLessThanOrEqual(Date.now());
  });

  it.each([
    ['7 minutes behind', -7],
    ['7 minutes ahead of', 7],
  ])("is proved by the API's clock when the worker's clock runs %s it", async (_, minutes) => {
    const { report, state, reason } = await pushLostAnswer(api.url, () => new Date(Date.now() + minutes * MINUTE));
    expect(report).toMatchObject({ sent: 1, succeeded: 1, reconciled: 1, unknown: 0 });
    expect(state).toBe('succeeded');
    expect(await appliedWith(reason)).toHaveLength(1);
  });

  it("is proved when a gateway's Date header is believable but wrong (30 minutes behind) and the worker's clock is right", async () => {
    const proxy = await startRewritingProxy(api.url, (_path, body) => body, { date: () => new Date(Date.now() - 30 * MINUTE).toUTCString() });
    try {
      const { report, state } = await pushLostAnswer(proxy.url, () => new Date());
      expect(report).toMatchObject({ sent: 1, succeeded: 1, reconciled: 1 });
      expect(state).toBe('succeeded');
    } finally {
      await proxy.close();
    }
  });

  it.each<[string, RewritingOptions['date']]>([
    ['absent', () => null],
    ['not a date', () => 'yesterday, more or less'],
    ['three years behind', () => new Date(Date.now() - 3 * YEAR).toUTCString()],
  ])('is searched for by the worker\'s clock when a gateway\'s Date header is %s', async (_, date) => {
    const requests: string[] = [];
    const proxy = await startRewritingProxy(api.url, (_path, body) => body, { date, onRequest: (url) => requests.push(url) });
    try {
      const sentAt = Date.now();
      const { report, state } = await pushLostAnswer(proxy.url, () => new Date());
      expect(report).toMatchObject({ sent: 1, succeeded: 1, reconciled: 1 });
      expect(state).toBe('succeeded');
      const searches = requests.filter((url) => url.startsWith('/v2/transactions?')).map((url) => Date.parse(new URL(url, 'http://proxy').searchParams.get('created_at_min') ?? ''));
      expect(searches.length).toBeGreaterThan(0);
      // The search starts a minute's margin before the attempt, not years before it.
      for (const since of searches) {
        expect(since).toBeGreaterThanOrEqual(sentAt - 2 * MINUTE);
        expect(since).toBeLessThanOrEqual(sentAt);
      }
    } finally {
      await proxy.close();
    }
  });
});
