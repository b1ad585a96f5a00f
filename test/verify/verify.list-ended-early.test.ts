import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { runVerify } from '../../src/verify/index.js';
import { scriptedServer, type ScriptedServer } from '../api/helpers.js';
import { upsert } from '../export/helpers.js';
import { apiTransaction, recordingLogger, testClient, testConfig } from '../helpers/sync.js';
import { freshMirror } from '../helpers/tempDir.js';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/**
 * A transactions list whose first page holds ids 1-3 and whose tail then hands out a new cursor on every
 * empty page, so the page reader ends it by rule. Asked again from since_id=3, it answers `above`.
 */
function listEndingByRule(above: number[]): (req: IncomingMessage, res: ServerResponse) => void {
  let tail = 0;
  return (req, res) => {
    const query = new URL(req.url ?? '/', 'http://api').searchParams;
    const items = query.has('cursor') ? [] : query.get('since_id') === '0' ? [1, 2, 3].map((id) => apiTransaction(id)) : above.map((id) => apiTransaction(id));
    const next = query.has('cursor') || query.get('since_id') === '0' ? `tail-${(tail += 1)}` : null;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ transactions: items, cursor: { prev: null, next } }));
  };
}

async function repairAgainst(above: number[]): Promise<{ extras: number[]; marked: number[]; warned: boolean }> {
  server = await scriptedServer([listEndingByRule(above)]);
  const { db } = freshMirror();
  upsert(db, 'transactions', [1, 2, 3, 4, 5].map((id) => apiTransaction(id)));
  const config = testConfig({ url: server.url, keys: { full: 'sk_test_list_ended_early', readOnly: '' } }, ':memory:');
  const { logger, records } = recordingLogger('warn');
  const client = testClient(config, logger);
  try {
    const report = await runVerify({ db, client, config, logger, streams: ['transactions'], mode: 'full', requests: 0, repair: true });
    return {
      extras: report.streams[0].extra.map(Number),
      marked: db.prepare('SELECT id FROM transactions WHERE _removed_at IS NOT NULL ORDER BY id').pluck().all() as number[],
      warned: records.some((record) => /the list ended before the API's last row/.test(String(record.msg))),
    };
  } finally {
    await client.close();
    db.close();
  }
}

describe('verify --full --repair of a list the page reader ended by rule', () => {
  it('marks nothing above the last page while the API still has rows there', async () => {
    expect(await repairAgainst([4])).toEqual({ extras: [], marked: [], warned: true });
  });

  it('marks the rows above it once the API confirms the list ended there', async () => {
    expect(await repairAgainst([])).toEqual({ extras: [4, 5], marked: [4, 5], warned: false });
  });
});
