import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseFaultSpec, simulateCommand } from '../../src/cli/simulate.js';

function captureOutput() {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out.push(String(chunk));
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    err.push(String(chunk));
    return true;
  });
  return { out, err };
}

describe('loyalty-sync simulate', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const bad: [string[], RegExp][] = [
    [['--size', 'huge'], /--size "huge".*tiny, small, medium, large/],
    [['--port', '70000'], /--port "70000".*0 to 65535/],
    [['--page-order', 'random'], /--page-order "random"/],
    [['--faults', 'drop=2'], /--faults "drop=2".*probability/],
    [['--faults', 'explode=0.1'], /--faults "explode=0.1".*name one of/],
    [['--verbose'], /verbose/],
  ];
  for (const [argv, message] of bad) {
    it(`${argv.join(' ')} → exit 2 with one sentence on stderr`, async () => {
      const { err } = captureOutput();
      expect(await simulateCommand(argv)).toBe(2);
      expect(err.join('')).toMatch(message);
    });
  }

  it('parses a fault spec', () => {
    expect(parseFaultSpec('rateLimited=0.05, drop=0.01,latencyMs=20')).toEqual({ rateLimited: 0.05, drop: 0.01, latencyMs: 20 });
  });

  it('serves, prints the address, keys and control routes, and stops cleanly on SIGTERM', async () => {
    const { out } = captureOutput();
    const running = simulateCommand(['--port', '0', '--size', 'tiny', '--seed', '5', '--faults', 'latencyMs=1']);
    const url = await vi.waitFor(() => {
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out.join(''));
      if (match === null) throw new Error('not listening yet');
      return match[1];
    });
    const text = out.join('');
    const key = /full key:\s+(\S+)/.exec(text)?.[1];
    expect(text).toMatch(/read-only key:\s+\S+/);
    expect(text).toContain('/__sim/tick');
    const whoami = await fetch(`${url}/v2/identity/whoami`, { headers: { authorization: `Bearer ${key}` } });
    expect(whoami.status).toBe(200);
    process.emit('SIGTERM', 'SIGTERM');
    expect(await running).toBe(0);
  });
});
