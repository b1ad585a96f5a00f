import cron, { type ScheduledTask } from 'node-cron';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Health } from '../metrics/health.js';
import { JOB_NAMES, type JobName, type JobOutcome } from './jobs.js';

export interface SchedulerOptions {
  schedule: Readonly<Config['schedule']>;
  run: (job: JobName) => Promise<JobOutcome>;
  logger: Logger;
  /** Called after every run (tests and status use it). */
  onRun?: (outcome: JobOutcome, startedAt: Date, finishedAt: Date) => void;
  /** Told when the schedules start and when they stop (`/healthz` answers 503 once they stopped). */
  health?: Pick<Health, 'schedulerStarted' | 'schedulerStopped'>;
}

export interface Scheduler {
  /** Stops the schedules and resolves once the runs in flight have finished. */
  stop(): Promise<void>;
}

/**
 * How late a tick may fire and still run: node-cron's default (one second) drops a tick that a paused or throttled
 * container, or a busy event loop, delays by two, which for a daily export or verify costs a whole day, with only
 * a line on stderr. node-cron still skips a tick once the next tick of its job is due, and runs that one.
 */
const LATE_TICK_TOLERANCE_MS = Number.MAX_SAFE_INTEGER;

/** Jobs that move the pull checkpoints: never two at once. */
const PULLS: readonly JobName[] = ['sync', 'refresh', 'deepRefresh'];
/** Pulls that wait for the one running, rather than skip their tick as a sync does. */
const DEFERRED_PULLS: readonly JobName[] = ['refresh', 'deepRefresh'];

/**
 * Runs each job on its cron schedule. A job never overlaps itself: a tick that finds the previous
 * run still going is skipped and logged. sync, refresh and deepRefresh all move the pull checkpoints, so
 * they never run together either: a refresh or deep refresh tick during a sync waits for it and then runs. A verify due
 * during a pull waits for it too, so it compares the API with a mirror that is not half-written.
 */
export function startScheduler(options: SchedulerOptions): Scheduler {
  const { logger } = options;
  const running = new Map<JobName, Promise<void>>();
  /** Jobs due while a pull ran, started when it ends (refresh, verify). */
  const deferred = new Set<JobName>();
  let stopping = false;

  const pullBusy = () => PULLS.some((pull) => running.has(pull));

  const launch = (job: JobName): void => {
    const startedAt = new Date();
    const done = options
      .run(job)
      .then((outcome) => {
        const finishedAt = new Date();
        logger[outcome.ok ? 'info' : 'warn'](
          { job, ok: outcome.ok, startedAt: startedAt.toISOString(), finishedAt: finishedAt.toISOString(), ms: finishedAt.getTime() - startedAt.getTime() },
          outcome.summary,
        );
        options.onRun?.(outcome, startedAt, finishedAt);
      })
      .finally(() => {
        running.delete(job);
        if (stopping || pullBusy()) return;
        // A refresh is a pull itself: a waiting verify goes after it.
        const pull = DEFERRED_PULLS.find((waiting) => deferred.delete(waiting));
        if (pull !== undefined) launch(pull);
        else if (deferred.delete('verify') && !running.has('verify')) launch('verify');
      });
    running.set(job, done);
  };

  const tick = (job: JobName): void => {
    if (stopping) return;
    if (running.has(job)) {
      logger.warn({ job }, `${job} is still running from its previous tick; skipping this one`);
      return;
    }
    if ((job === 'verify' || DEFERRED_PULLS.includes(job)) && pullBusy()) {
      logger.info({ job }, `${job} is due while a sync runs; it will start when the sync ends`);
      deferred.add(job);
      return;
    }
    if (job === 'sync' && pullBusy()) {
      logger.warn({ job }, 'sync is due while a refresh runs (which syncs too); skipping this tick');
      return;
    }
    launch(job);
  };

  const tasks: ScheduledTask[] = JOB_NAMES.map((job) => {
    const task = cron.schedule(options.schedule[job], () => tick(job), {
      timezone: options.schedule.timezone,
      name: `loyalty-sync:${job}`,
      missedExecutionTolerance: LATE_TICK_TOLERANCE_MS,
    });
    // Only a tick overtaken by the next one of its job is missed; that next one runs.
    task.on('execution:missed', (context) => {
      logger.warn({ job, slot: context.date.toISOString() }, `${job}'s tick of ${context.date.toISOString()} was missed (the process was paused or busy past the next one); the next tick runs it`);
    });
    return task;
  });
  logger.info({ schedule: options.schedule }, 'schedules started');
  options.health?.schedulerStarted();

  return {
    async stop() {
      stopping = true;
      options.health?.schedulerStopped();
      await Promise.all(tasks.map(async (task) => task.destroy()));
      await Promise.all(running.values());
    },
  };
}
