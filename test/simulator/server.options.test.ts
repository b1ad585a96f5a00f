import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { SimulatorOptions } from '../../src/simulator/index.js';

describe('startSimulator options', () => {
  const invalid: [string, SimulatorOptions, RegExp][] = [
    ['a fault rate above 1', { faults: { drop: 2 } }, /faults\.drop/],
    ['a negative latency', { faults: { latencyMs: -5 } }, /faults\.latencyMs/],
    ['a zero request rate', { rateLimit: { requestsPerSecond: 0, burst: 1 } }, /requestsPerSecond/],
    ['a negative size', { size: { customers: -1 } }, /size\.customers/],
    ['an unknown page order', { pageOrder: 'sideways' as SimulatorOptions['pageOrder'] }, /page order/],
  ];
  for (const [what, options, message] of invalid) {
    it(`refuses ${what} before listening`, async () => {
      await expect(startSimulator(options)).rejects.toThrow(message);
    });
  }

  it('listens on 127.0.0.1 on a free port by default and closes', async () => {
    const sim = await startSimulator({ size: 'tiny' });
    expect(sim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await sim.close();
    await expect(fetch(`${sim.url}/v2/identity/whoami`)).rejects.toThrow();
  });
});
