import type { CommandContext } from './context.js';
import { parseCommandArgs } from './args.js';
import { EXIT_FAILED, EXIT_OK, UsageError } from './errors.js';
import { createHealth } from '../metrics/health.js';
import { parseListenAddress, type ListenAddress } from '../metrics/listenAddress.js';
import { createMetrics, knownLabelValues } from '../metrics/registry.js';
import { LIVENESS_PATH, ListenError, METRICS_PATH, READINESS_PATH, startMetricsServer, type MetricsServer } from '../metrics/server.js';
import { LockLostError } from '../runtime/lock.js';
import { runJobThenSave } from '../runtime/jobs.js';
import { startScheduler } from '../runtime/scheduler.js';
import { ShutdownDeadlineError } from '../runtime/shutdown.js';
import { StoppedBeforeStartError, withWorker } from '../runtime/worker.js';
import { LeaseLostError } from '../state/errors.js';

const HELP = `Usage: loyalty-sync run [--config FILE] [--metrics-listen HOST:PORT]

Stays up and runs the jobs on the schedules of the config (schedule.sync, schedule.refresh,
schedule.deepRefresh, schedule.push, schedule.export, schedule.verify; cron expressions, 5 or 6 fields,
in schedule.timezone). A tick that fires late (a paused container) still runs its job.
The scheduled verify is sampled (verify.requests requests) and read-only; it logs what it found,
and the loyalty_verify_* metrics show it (LoyaltyVerifyDefects alerts on a defect).
A job never overlaps itself. If another loyalty-sync holds the mirror, waits for it (a SIGTERM or SIGINT
meanwhile exits 0: nothing ran).
SIGTERM or SIGINT: stop scheduling, let the work in flight commit (a sync its page, a push its jobs, an
export its whole run) within runtime.shutdownDeadlineSeconds, close the mirror and exit 0; past the
deadline the work is aborted (an export removes its temporary files) and the exit code is 1; a second
signal exits at once.

  --metrics-listen HOST:PORT  serve ${METRICS_PATH} (Prometheus), ${LIVENESS_PATH} (503 when the scheduler
                              stopped, the writer lock's lease was not renewed in time, or another process
                              holds the lock, naming it) and ${READINESS_PATH} (200 once the mirror is open and
                              this process holds the writer lock); default runtime.metricsListen or
                              LOYALTY_METRICS_LISTEN; off when empty. A bad or taken address exits 2.
`;

/**
 * Run's flags, checked (UsageError), without I/O: run before the state's lease is taken, and by the command.
 * A --metrics-listen that is no address is refused here; one that is taken only when the server starts.
 */
export function parseRunArgs(argv: string[]) {
  const { values } = parseCommandArgs('run', argv, { help: { type: 'boolean', short: 'h' }, 'metrics-listen': { type: 'string' } });
  const flag = values['metrics-listen'];
  if (values.help === true || flag === undefined || flag === '') return { help: values.help === true, listenFlag: flag, address: undefined };
  return { help: false, listenFlag: flag, address: listenAddress(flag, true) };
}

export async function runCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const { help, listenFlag, address } = parseRunArgs(argv);
  if (help) {
    ctx.stdout.write(HELP);
    return EXIT_OK;
  }
  const fromFlag = listenFlag !== undefined;
  const listen = listenFlag ?? ctx.config.runtime.metricsListen;
  // Off by default: without an address the jobs tell nobody, and nothing listens.
  const served = listen === '' ? null : { address: address ?? listenAddress(listen, fromFlag), metrics: createMetrics(knownLabelValues(ctx.config)), health: createHealth() };
  let server: MetricsServer | null = null;
  if (served !== null) {
    try {
      server = await startMetricsServer({ address: served.address, registry: served.metrics.registry, health: served.health, logger: ctx.logger });
    } catch (error) {
      if (!(error instanceof ListenError)) throw error;
      throw new UsageError(`${describeListenSource(fromFlag)} is "${listen}", but ${error.reason}.`);
    }
  }
  if (served !== null) ctx.stateFacts?.attach(served.metrics.state);
  const health = served?.health;
  try {
    const stopReason = await withWorker(ctx, { command: 'run', createsMirror: true, waitForLock: true, facts: served?.metrics.facts, health }, async (deps, signal, deadline) => {
      const scheduler = startScheduler({ schedule: ctx.config.schedule, logger: ctx.logger, run: (job) => runJobThenSave(job, deps, signal, { exportSignal: deadline }), health });
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      await scheduler.stop();
      return (deadline.aborted ? deadline.reason : signal.reason) as unknown;
    });
    // Losing the lock is not a requested stop, nor is work aborted at the deadline a clean one: a supervisor should see it.
    if (stopReason instanceof LockLostError || stopReason instanceof ShutdownDeadlineError || stopReason instanceof LeaseLostError) {
      ctx.stderr.write(`loyalty-sync: ${stopReason.message}\n`);
      return EXIT_FAILED;
    }
    ctx.logger.info('stopped cleanly');
    return EXIT_OK;
  } catch (error) {
    if (!(error instanceof StoppedBeforeStartError)) throw error;
    ctx.logger.info(error.message);
    return EXIT_OK;
  } finally {
    await server?.close();
  }
}

function listenAddress(value: string, fromFlag: boolean): ListenAddress {
  const parsed = parseListenAddress(value);
  if (typeof parsed === 'string') throw new UsageError(`${describeListenSource(fromFlag)} ${parsed}.`);
  return parsed;
}

function describeListenSource(fromFlag: boolean): string {
  return fromFlag ? '--metrics-listen' : 'runtime.metricsListen (or LOYALTY_METRICS_LISTEN)';
}
