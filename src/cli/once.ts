import type { CommandContext } from './context.js';
import { parseCommandArgs } from './args.js';
import { EXIT_FAILED, EXIT_OK } from './errors.js';
import { runJob, type JobName, type JobOutcome } from '../runtime/jobs.js';
import { withWorker } from '../runtime/worker.js';

const HELP = `Usage: loyalty-sync once [--config FILE] [--verify]

Runs sync, then push, then export, printing one line per step. With --verify, a sampled verify
(verify.requests requests, default 50) runs right after the sync; differences it finds fail the run.
Exit 0 only if every step succeeded, 1 if any failed (or another loyalty-sync holds the mirror),
2 for bad usage or config. Meant for cron-style container jobs (Kubernetes CronJob, ECS tasks).
`;

export const ONCE_STEPS: readonly JobName[] = ['sync', 'push', 'export'];
const ONCE_STEPS_VERIFIED: readonly JobName[] = ['sync', 'verify', 'push', 'export'];

export async function onceCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const { values } = parseCommandArgs('once', argv, { verify: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } });
  if (values.help) {
    ctx.stdout.write(HELP);
    return EXIT_OK;
  }
  const steps = values.verify ? ONCE_STEPS_VERIFIED : ONCE_STEPS;
  const outcomes = await withWorker(ctx, { command: 'once', waitForLock: false }, async (deps, signal) => {
    const results: JobOutcome[] = [];
    for (const step of steps) {
      if (signal.aborted) break;
      const outcome = await runJob(step, deps, signal);
      ctx.stdout.write(`${outcome.ok ? 'ok  ' : 'FAIL'} ${outcome.summary}\n`);
      results.push(outcome);
    }
    return results;
  });
  const ok = outcomes.length === steps.length && outcomes.every((outcome) => outcome.ok);
  return ok ? EXIT_OK : EXIT_FAILED;
}
