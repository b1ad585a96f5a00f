import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createProgress } from '../../src/sync/progress.js';

function terminal(isTTY: boolean): { out: Writable & { isTTY?: boolean }; text: () => string } {
  let text = '';
  const out: Writable & { isTTY?: boolean } = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  out.isTTY = isTTY;
  return { out, text: () => text };
}

describe('progress', () => {
  it('redraws one line per stream on a terminal with rows, rows/s and pages, and leaves the final one', () => {
    let clock = 0;
    const { out, text } = terminal(true);
    const progress = createProgress(out, () => clock);
    progress.begin('orders');
    clock = 500;
    progress.update('orders', 1_000, 2);
    clock = 2_000;
    progress.finish('orders', 3_000, 6, 'succeeded');
    const lines = text().split('\r\x1b[2K');
    expect(lines[0]).toBe('');
    expect(lines[1]).toMatch(/^orders\s+1,000 rows\s+2,000 rows\/s\s+2 pages$/);
    expect(lines[2]).toMatch(/^orders\s+3,000 rows\s+1,500 rows\/s\s+6 pages {2}succeeded\n$/);
    expect(lines).toHaveLength(3);
  });

  it('writes nothing when the output is not a terminal', () => {
    const { out, text } = terminal(false);
    const progress = createProgress(out);
    progress.begin('orders');
    progress.update('orders', 1, 1);
    progress.finish('orders', 1, 1, 'succeeded');
    expect(text()).toBe('');
  });
});
