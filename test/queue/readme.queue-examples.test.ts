import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { currentHour, startSimulator } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';
import { loyaltySyncArgs } from '../helpers/shellLines.js';
import { tempDir } from '../helpers/tempDir.js';

/** The fenced blocks of the README's "The write queue" section, by language. */
function queueSectionBlocks(): { sh: string; csv: string } {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## The write queue'), readme.indexOf('\n## ', readme.indexOf('## The write queue') + 1));
  const block = (lang: string) => [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].find((match) => match[1] === lang)?.[2];
  const sh = block('sh');
  const csv = block('csv');
  if (sh === undefined || csv === undefined) throw new Error('the write queue section lost its sh or csv example');
  return { sh, csv };
}

describe("the README's write-queue examples", () => {
  it('queue and push writes that all succeed against the simulator that `simulate` serves by default', async () => {
    const { sh, csv } = queueSectionBlocks();
    const cwd = tempDir('ls-readme-queue-');
    writeFileSync(join(cwd, 'credits.csv'), csv);
    // `simulate`'s defaults: seed 1, size medium (on a free port here rather than 8787).
    const sim = await startSimulator({ seed: 1, size: 'medium', epoch: currentHour(), port: 0 });
    try {
      const env = { LOYALTY_BASE_URL: sim.url, LOYALTY_API_KEY: sim.keys.full, LOYALTY_DB: join(cwd, 'mirror.db') };
      const commands = sh.replace(/\\\n/g, ' ').split('\n').map(loyaltySyncArgs).filter((args) => args !== null);
      expect(commands.map((args) => args.slice(0, 2).join(' '))).toContain('queue import');
      for (const args of commands) {
        const result = await runCli(args, { cwd, env });
        expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      }
      const list = await runCli(['queue', 'list', '--json'], { cwd, env });
      const jobs = JSON.parse(list.stdout) as Array<{ id: number; kind: string; state: string; lastError: string | null }>;
      expect(jobs.map((job) => job.kind).sort()).toEqual(['add_points', 'add_points', 'add_points', 'claim_reward', 'create_order', 'delete_review', 'update_review']);
      for (const job of jobs) expect(job.state, `job ${job.id} (${job.kind}): ${job.lastError}`).toBe('succeeded');
    } finally {
      await sim.close();
    }
  });
});
