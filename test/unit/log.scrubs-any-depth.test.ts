import { Writable } from 'node:stream';
import { expect, it } from 'vitest';
import { createLogger, registerSecret } from '../../src/log.js';

const KEY = 'sk_live_scrub_7c6b5a4d3e2f';
registerSecret(KEY);

async function logged(write: (logger: ReturnType<typeof createLogger>) => void): Promise<Array<Record<string, unknown>>> {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter((line) => line !== ''));
      done();
    },
  });
  const logger = createLogger({ level: 'info', destination });
  write(logger);
  logger.flush();
  await new Promise((resolve) => setImmediate(resolve));
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

it('an error under any key shows its sentence with the key masked, also its enumerable fields', async () => {
  const failure = Object.assign(new Error(`upload refused for ${KEY}`), { code: 'E_REFUSED', response: { body: `echo ${KEY}` } });
  const [record] = await logged((logger) => logger.warn({ upload: { failure }, attempts: [failure] }, 'could not upload'));
  const text = JSON.stringify(record);
  expect(text).not.toContain(KEY);
  expect(record.upload).toEqual({ failure: { type: 'Error', message: 'upload refused for [REDACTED]', code: 'E_REFUSED' } });
  expect((record.attempts as unknown[])[0]).toMatchObject({ message: 'upload refused for [REDACTED]' });
});

it('masks a secret nested deeper than a few levels', async () => {
  let nested: Record<string, unknown> = { token: `Bearer ${KEY}` };
  for (let i = 0; i < 12; i += 1) nested = { level: nested };
  const [record] = await logged((logger) => logger.info({ detail: nested }, 'deep'));
  const text = JSON.stringify(record);
  expect(text).not.toContain(KEY);
  expect(text).toContain('Bearer [REDACTED]');
});

it('logs cycles and a 20,000-level object without throwing, and leaks nothing from them', async () => {
  const cyclic: Record<string, unknown> = { note: KEY };
  cyclic.self = cyclic;
  const cause: Error & { cause?: unknown } = new Error(`inner ${KEY}`);
  const outer = new Error('outer', { cause });
  cause.cause = outer;
  let deep: Record<string, unknown> = { secret: KEY };
  for (let i = 0; i < 20_000; i += 1) deep = { next: deep };
  const records = await logged((logger) => {
    logger.info({ cyclic }, 'cycle');
    logger.error({ err: outer }, 'error cycle');
    logger.info({ deep }, 'deep');
  });
  expect(records.map((record) => record.msg)).toEqual(['cycle', 'error cycle', 'deep']);
  expect(JSON.stringify(records)).not.toContain(KEY);
  expect(records[0].cyclic).toEqual({ note: '[REDACTED]', self: '[Circular]' });
});
