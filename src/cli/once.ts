import type { CommandContext } from './context.js';
import { parseCommandArgs } from './args.js';
import { EXIT_FAILED, EXIT_OK } from './errors.js';
import { runJob, type JobName, type JobOutcome } from '../runtime/jobs.js';
import { withWorker } from '../runtime/worker.js';
import { SKIPPED_UNREACHABLE } from '../sync/index.js';

const HELP = `Usage: loyalty-sync once [--config FILE]

Runs sync, then push, then export, printing one line per step.
When the sync finds the API unreachable at all (connection refused, no such host, TLS refused), the push
is skipped and the export still runs from the mirror.
Exit 0 only if every step succeeded, 1 if any failed or was skipped (or another loyalty-sync holds the
mirror), 2 for bad usage or config. Meant for cron-style container jobs (Kubernetes CronJob, ECS tasks).
`;

export const ONCE_STEPS: readonly JobName[] = ['sync', 'push', 'export'];

export async function onceCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const { values } = parseCommandArgs('once', argv, { help: { type: 'boolean', short: 'h' } });
  if (values.help) {
    ctx.stdout.write(HELP);
    return EXIT_OK;
  }
  const outcomes = await withWorker(ctx, { command: 'once', waitForLock: false }, async (deps, signal) => {
    const results: JobOutcome[] = [];
    for (const step of ONCE_STEPS) {
      if (signal.aborted) break;
      // The export reads only the mirror, so it still runs; a push would only find the same closed door.
      if (step === 'push' && results.some((earlier) => earlier.unreachable)) {
        const outcome: JobOutcome = { job: step, ok: false, summary: `push: ${SKIPPED_UNREACHABLE}; the queued jobs wait for the next run` };
        ctx.stdout.write(`SKIP ${outcome.summary}\n`);
        results.push(outcome);
        continue;
      }
      const outcome = await runJob(step, deps, signal);
      ctx.stdout.write(`${outcome.ok ? 'ok  ' : 'FAIL'} ${outcome.summary}\n`);
      results.push(outcome);
    }
    return results;
  });
  const ok = outcomes.length === ONCE_STEPS.length && outcomes.every((outcome) => outcome.ok);
  return ok ? EXIT_OK : EXIT_FAILED;
}
