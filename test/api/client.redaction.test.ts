import { afterEach, expect, it } from 'vitest';
import { describeError } from '../../src/api/errors.js';
import { captureLogger, json, reset, scriptedServer, testClient, truncated, type ScriptedServer } from './helpers.js';

const KEY = 'sk_live_redaction_9f8e7d6c5b4a';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

it('the API key never appears in captured log output, even when the API echoes it', async () => {
  const echo = `invalid credential Bearer ${KEY} (key ${KEY})`;
  server = await scriptedServer([
    json(429, { error: { message: 'slow down', code: 'rate_limited' } }),
    json(503, `<html>${KEY}</html>`),
    reset,
    truncated(`{"orders":[{"id":1,"note":"${KEY}`),
    json(401, { error: { message: echo, code: 'unauthorized', details: { authorization: `Bearer ${KEY}` } } }),
    json(404, { error: echo }),
    reset,
  ]);
  const { logger, lines } = captureLogger('debug');
  const client = testClient(server.url, KEY, { logger });
  const errors: unknown[] = [];
  for (const call of [
    () => client.fetchPage('orders', {}),
    () => client.deleteReview('custom', 'r-1'),
    () => client.addPoints('c-1', { points: 1, reason: 'r' }),
  ]) {
    await call().catch((error: unknown) => {
      errors.push(error);
      logger.error({ err: error }, describeError(error));
    });
  }
  expect(errors).toHaveLength(3);
  // The retries were logged, so the check below reads real output.
  expect(lines.filter((line) => line.includes('retrying after'))).toHaveLength(4);
  expect(lines.join('\n')).not.toContain(KEY);
  for (const error of errors) {
    expect(describeError(error)).not.toContain(KEY);
    expect(JSON.stringify(error)).not.toContain(KEY);
    expect(String((error as Error).message)).not.toContain(KEY);
  }
  await client.close();
});
