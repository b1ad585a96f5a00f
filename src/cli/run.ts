import type { CommandContext } from './context.js';
import { parseCommandArgs } from './args.js';
import { EXIT_FAILED, EXIT_OK } from './errors.js';
import { LockLostError } from '../runtime/lock.js';
import { runJob } from '../runtime/jobs.js';
import { startScheduler } from '../runtime/scheduler.js';
import { withWorker } from '../runtime/worker.js';

const HELP = `Usage: loyalty-sync run [--config FILE]

Stays up and runs the jobs on the schedules of the config (schedule.sync, schedule.refresh,
schedule.push, schedule.export, schedule.verify; cron expressions, 5 or 6 fields, in schedule.timezone).
The scheduled verify is sampled (verify.requests requests) and read-only; it logs what it found.
A job never overlaps itself. If another loyalty-sync holds the mirror, waits for it.
SIGTERM or SIGINT: stop scheduling, let the work in flight commit (runtime.shutdownDeadlineSeconds),
close the mirror and exit 0; a second signal exits at once.
`;

export async function runCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const { values } = parseCommandArgs('run', argv, { help: { type: 'boolean', short: 'h' } });
  if (values.help) {
    ctx.stdout.write(HELP);
    return EXIT_OK;
  }
  const stopReason = await withWorker(ctx, { command: 'run', waitForLock: true }, async (deps, signal) => {
    const scheduler = startScheduler({ schedule: ctx.config.schedule, logger: ctx.logger, run: (job) => runJob(job, deps, signal) });
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    await scheduler.stop();
    return signal.reason as unknown;
  });
  // Losing the lock is not a requested stop: a supervisor should see it and restart the process.
  if (stopReason instanceof LockLostError) {
    ctx.stderr.write(`loyalty-sync: ${stopReason.message}\n`);
    return EXIT_FAILED;
  }
  ctx.logger.info('stopped cleanly');
  return EXIT_OK;
}
