import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { whoamiCommand } from '../../src/cli/whoami.js';
import { loadConfig } from '../../src/config.js';
import { startSimulator } from '../../src/simulator/index.js';
import { captureLogger } from './helpers.js';

type Simulator = Awaited<ReturnType<typeof startSimulator>>;

function sink(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

async function run(argv: string[], env: Record<string, string>) {
  const stdout = sink();
  const stderr = sink();
  const { logger, lines } = captureLogger('debug');
  const config = loadConfig({ env });
  const code = await whoamiCommand(argv, { config, logger, stdout: stdout.stream, stderr: stderr.stream });
  return { code, stdout: stdout.text(), stderr: stderr.text(), logs: lines.join('\n') };
}

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ seed: 7, size: 'tiny' });
});
afterAll(async () => {
  await sim.close();
});

describe('whoami', () => {
  it('prints the identity, its scopes, and that review writes need write_reviews', async () => {
    const result = await run([], { LOYALTY_API_KEY: sim.keys.readOnly, LOYALTY_BASE_URL: sim.url });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Identity: api_key$/m);
    expect(result.stdout).toMatch(/^Account: +\d+$/m);
    expect(result.stdout).toMatch(/^Program: +\d+$/m);
    expect(result.stdout).toMatch(/^Scopes: +.*read_/m);
    expect(result.stdout).toContain('queued review writes (update-review, delete-review) need scope write_reviews');
    expect(result.stdout).toContain('the API spec does not state the scope');
    expect(result.stderr).toBe('');
  });

  it('says review writes are allowed for a key with write_reviews', async () => {
    const result = await run([], { LOYALTY_API_KEY: sim.keys.full, LOYALTY_BASE_URL: sim.url });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('queued review writes (update-review, delete-review): allowed');
  });

  it('--json prints the identity JSON', async () => {
    const result = await run(['--json'], { LOYALTY_API_KEY: sim.keys.full, LOYALTY_BASE_URL: sim.url });
    expect(result.code).toBe(0);
    const identity = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(identity).toMatchObject({ kind: 'api_key', account_id: expect.any(Number), program_id: expect.any(Number) });
    expect(identity.scopes).toContain('write_reviews');
  });

  it('a rejected key gives exit 1 and one sentence, without the key or a stack', async () => {
    const key = 'sk_wrong_key_0000000000';
    const result = await run([], { LOYALTY_API_KEY: key, LOYALTY_BASE_URL: sim.url });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('loyalty-sync: the API rejected the credential (401)\n');
    expect(result.stdout).toBe('');
    expect(result.logs).not.toContain(key);
  });

  it('a missing LOYALTY_API_KEY gives exit 2 and one sentence', async () => {
    const result = await run([], { LOYALTY_BASE_URL: sim.url });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^loyalty-sync: LOYALTY_API_KEY is not set;[^\n]*\n$/);
  });
});
