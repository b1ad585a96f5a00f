import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, redact, registerSecret } from '../../src/log.js';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { lines, destination };
}

describe('log redaction', () => {
  const key = 'sk_live_5f1e9c0d2b7a4e38';
  registerSecret(key);

  it('masks the key in messages, fields, nested objects and errors', async () => {
    const { lines, destination } = capture();
    const logger = createLogger({ level: 'debug', destination });
    logger.info(`calling with ${key}`);
    logger.info({ apiKey: key, headers: { authorization: `Bearer ${key}` } }, 'request');
    logger.warn({ detail: { text: `token=${key}` } }, 'nested');
    logger.error({ err: new Error(`request failed for Bearer ${key}`, { cause: new Error(`inner ${key}`) }) }, 'failed');
    logger.flush();
    await new Promise((resolve) => setImmediate(resolve));
    const output = lines.join('');
    expect(lines.length).toBe(4);
    expect(output).not.toContain(key);
    expect(output).toContain('[REDACTED]');
  });

  it('masks anything that looks like a Bearer credential', () => {
    expect(redact('Authorization: Bearer abc.def-123')).toBe('Authorization: Bearer [REDACTED]');
  });

  it('logs an error as its sentence, code and causes, with the stack only at debug level', async () => {
    const logged = async (level: 'info' | 'debug'): Promise<Record<string, unknown>> => {
      const { lines, destination } = capture();
      const logger = createLogger({ level, destination });
      logger.error({ err: Object.assign(new Error('export failed', { cause: new Error('socket hang up') }), { code: 'ECONNRESET' }) }, 'export failed');
      logger.flush();
      await new Promise((resolve) => setImmediate(resolve));
      return (JSON.parse(lines.join('')) as { err: Record<string, unknown> }).err;
    };
    const atInfo = await logged('info');
    expect(atInfo).toEqual({ type: 'Error', message: 'export failed', code: 'ECONNRESET', cause: { type: 'Error', message: 'socket hang up' } });
    const atDebug = await logged('debug');
    expect(atDebug.stack).toMatch(/^Error: export failed\n\s+at /);
    expect((atDebug.cause as Record<string, unknown>).stack).toMatch(/^Error: socket hang up/);
  });
});
