import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';
import { jobRecipes, type JobRecipe } from '../helpers/jobRecipes.js';
import { shellWords } from '../helpers/shellLines.js';
import { tempDir } from '../helpers/tempDir.js';
import { startConditionalPutProxy, type ConditionalPutProxy } from '../s3/conditionalPutProxy.js';
import { startFaultProxy, type FaultProxy } from '../s3/faultProxy.js';
import { awsEnv, listKeys, newBucket, putText, storeClient, swift } from '../s3/helpers.js';
import { MODEST_PROGRAM } from './stateStore.js';

/** A stateless job as a document gives it: the variables it sets literally and the arguments of loyalty-sync. */
interface DocumentedJob {
  name: string;
  literals: Record<string, string>;
  args: string[];
}

/** The README's lines that run a job on the state in the bucket: `NAME=VALUE … loyalty-sync ARGS`. */
function readmeJobs(): DocumentedJob[] {
  return readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('LOYALTY_STATE_URL=') && line.includes(' loyalty-sync '))
    .map((line, index) => {
      const words = shellWords(line);
      const command = words.indexOf('loyalty-sync');
      const literals = Object.fromEntries(words.slice(0, command).map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]));
      return { name: `README line ${index + 1}`, literals, args: words.slice(command + 1) };
    });
}

function recipeJob(recipe: JobRecipe): DocumentedJob {
  const literals: Record<string, string> = {};
  for (const { name, source } of recipe.env) if (source.kind === 'literal') literals[name] = source.value;
  return { name: recipe.name, literals, args: recipe.args };
}

const jobs = [...jobRecipes().map(recipeJob), ...readmeJobs()];

/**
 * Every recipe's command, and the README's, run twice as a scheduler would run them: each run on a fresh
 * container whose /tmp holds nothing yet, against Swift behind the proxy that makes create-only writes
 * atomic, with SlowDown answers and lost answers on the way. The recipe's own settings are kept; only what
 * points at the real world (the API, the buckets, the endpoint, /tmp) is pointed at loopback and a test folder.
 */
describe('the stateless recipes, run twice, each run in a folder that does not exist yet', () => {
  const client = storeClient();
  let sim: SimulatorHandle;
  let enforcing: ConditionalPutProxy;
  let faulty: FaultProxy;
  let bucket: string;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 31, size: MODEST_PROGRAM });
    enforcing = await startConditionalPutProxy(swift().endpoint, client);
    let writes = 0;
    // Every seventh write is answered 503 SlowDown, every eleventh is applied and its answer lost.
    faulty = await startFaultProxy(enforcing.endpoint, { fault: () => (++writes % 11 === 0 ? 'drop-after-apply' : writes % 7 === 0 ? 'slowdown' : 'pass'), listPageKeys: 3 });
    bucket = await newBucket(client);
  });
  afterAll(async () => {
    await sim.close();
    await faulty.close();
    await enforcing.close();
    client.destroy();
  });

  /** The job's environment on one fresh container: `/tmp/…` paths land under `root`, which does not exist yet. */
  function containerEnv(job: DocumentedJob, slug: string, root: string): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(job.literals)) env[name] = value.startsWith('/tmp/') ? join(root, value) : value;
    delete env.LOYALTY_EXPORT__S3__ENDPOINT;
    delete env.LOYALTY_EXPORT__S3__REGION;
    return {
      ...env,
      ...awsEnv(faulty.endpoint),
      LOYALTY_API_KEY: sim.keys.full,
      LOYALTY_BASE_URL: sim.url,
      LOYALTY_STATE_URL: `s3://${bucket}/${slug}/state`,
      ...(env.LOYALTY_EXPORT_URL === undefined ? {} : { LOYALTY_EXPORT_URL: `s3://${bucket}/${slug}/exports` }),
      // Small pages, so that a whole read costs many requests and an incremental one few.
      LOYALTY_API__PAGE_SIZE: '25',
    };
  }

  it.each(jobs.map((job, index) => [job.name, job, index] as const))('%s: the second run restores, goes on incrementally and reads the inbox', async (_name, job, index) => {
    expect(job.literals.LOYALTY_DB).toMatch(/^\/tmp\//);
    const slug = `job-${index}`;
    const machine = tempDir('ls-recipe-');
    const runs: Array<{ requests: number; mirror: string }> = [];
    const customer = (sim.truth('customers') as Array<{ merchant_id: string; blocked: boolean }>).filter((c) => !c.blocked)[index];

    for (const run of [1, 2]) {
      const root = join(machine, `container-${run}`);
      const env = containerEnv(job, slug, root);
      if (run === 2) {
        sim.tick();
        await putText(client, bucket, `${slug}/state/inbox/add_points/from-${slug}.csv`, `customer_merchant_id,points,reason\n${customer.merchant_id},31,recipe run ${slug}\n`);
      }
      const before = sim.stats().requests;
      // The container's working folder: a job that leaves LOYALTY_EXPORT_DIR to its default writes there.
      const result = await runCli(job.args, { env, cwd: machine });
      expect(result.code, `run ${run}: ${result.stderr}`).toBe(0);
      const mirror = env.LOYALTY_DB;
      // Owner-only, as a sync makes them: the mirror holds customers' emails.
      expect((statSync(mirror).mode & 0o777).toString(8), `run ${run}: the mirror's mode`).toBe('600');
      expect((statSync(dirname(mirror)).mode & 0o777).toString(8), `run ${run}: the mirror folder's mode`).toBe('700');
      runs.push({ requests: sim.stats().requests - before, mirror });
    }

    // Incremental: the restored checkpoints carry on where the first run stopped.
    expect(runs[1].requests, `first run ${runs[0].requests} requests, second ${runs[1].requests}`).toBeLessThan(runs[0].requests / 3);
    expect(sim.ledger().filter((entry) => entry.kind === 'add_points' && entry.target === customer.merchant_id).map((entry) => (entry.body as { points: number }).points)).toEqual([31]);
    expect(await listKeys(client, bucket, `${slug}/state/outbox/add_points/`)).toEqual([`${slug}/state/outbox/add_points/from-${slug}.results.csv`]);
    expect(faulty.slowdowns + faulty.drops).toBeGreaterThan(0);
  });
});
