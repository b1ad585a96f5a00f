import { describe, expect, it } from 'vitest';
import { currentHour, startSimulator, type SizePreset } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';
import { loyaltySyncArgs, shellWords } from '../helpers/shellLines.js';
import { tempDir } from '../helpers/tempDir.js';

describe('demo', () => {
  it('prints queue writes that succeed against the simulator it names, with merchant ids of its mirror', async () => {
    const cwd = tempDir('ls-demo-writes-');
    const demo = await runCli(['demo', '--size', 'tiny'], { cwd });
    expect(demo.code, demo.stderr).toBe(0);
    const lines = demo.stdout.split('\n');
    const start = lines.findIndex((line) => line.startsWith('queue writes of your own'));
    expect(start, demo.stdout).toBeGreaterThan(0);
    const printed = lines.slice(start + 1).map((line) => line.trim()).filter((line) => line !== '');

    // The simulate line says which program to serve; the test serves it on a free port instead of 8787.
    const simulate = printed.map(loyaltySyncArgs).find((args) => args?.[0] === 'simulate');
    expect(simulate).toBeDefined();
    const flag = (name: string) => simulate![simulate!.indexOf(name) + 1];
    const sim = await startSimulator({ seed: Number(flag('--seed')), size: flag('--size') as SizePreset, epoch: currentHour(), port: 0 });
    try {
      const exported = printed.find((line) => line.startsWith('export '));
      expect(exported).toBeDefined();
      const env = Object.fromEntries(shellWords(exported!).slice(1).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
      expect(env.LOYALTY_BASE_URL).toBe('http://127.0.0.1:8787');
      env.LOYALTY_BASE_URL = sim.url;

      const commands = printed.map(loyaltySyncArgs).filter((args): args is string[] => args !== null && args[0] !== 'simulate');
      const queued = commands.filter((args) => args[0] === 'queue' && args[1] !== 'list');
      expect(queued.map((args) => args[1]).sort()).toEqual(['add-points', 'claim-reward', 'create-order', 'update-review']);
      for (const args of commands) {
        const result = await runCli(args, { cwd, env });
        expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      }

      const list = await runCli(['queue', 'list', '--json'], { cwd, env });
      const jobs = JSON.parse(list.stdout) as Array<{ id: number; kind: string; state: string; lastError: string | null }>;
      // The demo's own three writes and the four printed ones, every one accepted by the API.
      expect(jobs.map((job) => job.kind).sort()).toEqual(['add_points', 'add_points', 'claim_reward', 'create_order', 'create_order', 'update_review', 'update_review']);
      for (const job of jobs) expect(job.state, `job ${job.id} (${job.kind}): ${job.lastError}`).toBe('succeeded');
    } finally {
      await sim.close();
    }
  });
});
