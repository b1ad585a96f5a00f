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
    [['--profile', 'minimal'], /^--profile "minimal" is not valid: expected one of full, bare, empty, single\.\n$/],
    [['--profile', 'empty', '--size', 'small'], /--size "small" cannot be combined with --profile empty/],
  ];
  for (const [argv, message] of bad) {
    it(`${argv.join(' ')} → exit 2 with one sentence on stderr`, async () => {
      const { err } = captureOutput();
      expect(await simulateCommand(argv)).toBe(2);
      expect(err.join('')).toMatch(message);
    });
  }

  it('--help names every profile with what it leaves out', async () => {
    const { out } = captureOutput();
    expect(await simulateCommand(['--help'])).toBe(0);
    const help = out.join('');
    expect(help).toContain('[--profile full|bare|empty|single]');
    for (const line of [/^ {2}bare +no optional field on any record/m, /^ {2}empty +a program on its first day/m, /^ {2}single +one customer/m]) expect(help).toMatch(line);
  });

  it('serves the program of --profile: single has one customer', async () => {
    const { out } = captureOutput();
    const running = simulateCommand(['--port', '0', '--profile', 'single']);
    const url = await vi.waitFor(() => {
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out.join(''));
      if (match === null) throw new Error('not listening yet');
      return match[1];
    });
    expect(out.join('')).toContain('profile single');
    const customers = (await (await fetch(`${url}/__sim/truth/customers`)).json()) as unknown[];
    expect(customers).toHaveLength(1);
    process.emit('SIGTERM', 'SIGTERM');
    expect(await running).toBe(0);
  });

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
