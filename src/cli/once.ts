import type { Registry } from 'prom-client';
import type { ApiClient } from '../api/client.js';
import { describeError } from '../api/errors.js';
import { plainHttpWarning } from '../config.js';
import { createClient, type CommandContext } from './context.js';
import { parseCommandArgs } from './args.js';
import { EXIT_FAILED, EXIT_OK, UsageError } from './errors.js';
import { metricsFileProblem, writeMetricsFile } from '../metrics/metricsFile.js';
import { gatewayForDisplay, pushToGateway } from '../metrics/pushgateway.js';
import { createMetrics, knownLabelValues } from '../metrics/registry.js';
import { createStateMetrics } from '../metrics/stateMetrics.js';
import type { LeaseHeldError } from '../state/errors.js';
import { configuredPlace, describePlace, lastFullExport, sameCalendarDay } from '../export/lastFullExport.js';
import { runJobThenSave, type JobName, type JobOutcome, type WorkerDeps } from '../runtime/jobs.js';
import { withWorker } from '../runtime/worker.js';
import { lastCompleteVerify } from '../verify/verifyRuns.js';

const HELP = `Usage: loyalty-sync once [--config FILE] [--verify | --verify-daily] [--export-daily] [--accept-removals] [--metrics-file PATH] [--pushgateway URL]

Runs sync, then push, then export, printing one line per step. With --verify, a sampled verify
(verify.requests requests, default 50) runs right after the sync; defects it finds fail the run
(pending differences, which the sync's next passes bring, do not).
When the sync finds the API unreachable at all (connection refused, no such host, TLS refused), or the API
refuses the credential (401, or 403 before any stream succeeded), the verify and the push are skipped and the export
still runs from the mirror. Without LOYALTY_API_KEY nothing runs: exit 2.
Exit 0 only if every step succeeded, 1 if any failed or was skipped (a push fails when a job went dead
in it, and its line names each: id, kind and the API's answer) or another loyalty-sync holds the
mirror, 2 for bad usage or config. Meant for cron-style container jobs (Kubernetes CronJob, ECS tasks).
With state.url, a run that finds another run's live lease on the state prints one line saying it
skipped, who holds the lease and until when, and exits 0; its metrics are then the loyalty_state_*
families alone (the skip counted), and a push of them replaces only those in the program's group.

  --verify-daily        as --verify, but only when no verify run over every stream in sync.streams
                        has finished yet today (in schedule.timezone) without a stream failing. One
                        that found defects counts: its run failed, the later runs of the day skip the
                        verify and exit 0, and with --metrics-file or --pushgateway their metrics go on
                        reporting the newest verify, so the alerts stay. One that could not finish
                        does not count: the next run tries again, spending verify.requests again.
                        So a CronJob that runs every 15 minutes verifies, and reconciles the points
                        ledger, once a day.
  --export-daily        export only when no full export of the configured formats (export.formats) has
                        reached the configured place yet today (in schedule.timezone): export.url's
                        bucket and prefix when set, else the export folder. Exports to other places
                        (export --to elsewhere) or of fewer formats or tables do not count. So a
                        CronJob can sync and push every 15 minutes and export once a day; a day whose
                        export failed tries again on the next run.
  --accept-removals     confirm a mass removal from the unsubscribe list, as sync --accept-removals does
  --metrics-file PATH   at the end, also after a failure, write this run's metrics (the families of
                        run --metrics-listen) to PATH for node_exporter's textfile collector; written
                        under a temporary name and renamed, so PATH is never seen half-written.
                        A folder that does not exist or may not be written is refused before the
                        run starts (exit 2); a file that then cannot be written makes the exit code 1.
  --pushgateway URL     at the end, push the same metrics to a Prometheus Pushgateway (job loyalty_sync,
                        grouped by program_id). An unreachable Pushgateway is a warning only: the exit
                        code stays what the job made it.
`;

export const ONCE_STEPS: readonly JobName[] = ['sync', 'push', 'export'];
const ONCE_STEPS_VERIFIED: readonly JobName[] = ['sync', 'verify', 'push', 'export'];

/** Used as the grouping key when the credential's program cannot be asked (a bad key, the API down). */
const UNKNOWN_PROGRAM = 'unknown';

/** Once's flags, checked: exits 2 (UsageError) for a metrics file or Pushgateway that cannot work. */
export function parseOnceArgs(argv: string[]) {
  const { values } = parseCommandArgs('once', argv, {
    verify: { type: 'boolean' },
    'verify-daily': { type: 'boolean' },
    'export-daily': { type: 'boolean' },
    'accept-removals': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
    'metrics-file': { type: 'string' },
    pushgateway: { type: 'string' },
  });
  if (values.help) return { values, metricsFile: undefined, gateway: undefined };
  if (values.verify && values['verify-daily']) {
    throw new UsageError('--verify and --verify-daily were both given; expected one of them: --verify verifies on every run, --verify-daily on the first run of a day.');
  }
  const metricsFile = values['metrics-file'];
  if (metricsFile === '') throw new UsageError('--metrics-file is empty; expected a file path such as /var/lib/node_exporter/textfile/loyalty_sync.prom.');
  const problem = metricsFile === undefined ? null : metricsFileProblem(metricsFile);
  if (problem !== null) throw new UsageError(`--metrics-file is "${metricsFile}", but ${problem}; expected a file path in a folder this user may write, such as /var/lib/node_exporter/textfile/loyalty_sync.prom.`);
  const gateway = values.pushgateway === undefined ? undefined : gatewayUrl(values.pushgateway);
  return { values, metricsFile, gateway };
}

export async function onceCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const { values, metricsFile, gateway } = parseOnceArgs(argv);
  if (values.help) {
    ctx.stdout.write(HELP);
    return EXIT_OK;
  }
  if (ctx.leaseHeld !== undefined) return skipForHeldLease(ctx, ctx.leaseHeld, { metricsFile, gateway });
  const metrics = metricsFile === undefined && gateway === undefined ? null : createMetrics(knownLabelValues(ctx.config));
  if (metrics !== null) ctx.stateFacts?.attach(metrics.state);

  const steps = values.verify || values['verify-daily'] ? ONCE_STEPS_VERIFIED : ONCE_STEPS;
  let programId = UNKNOWN_PROGRAM;
  let ok = false;
  try {
    const outcomes = await withWorker(ctx, { command: 'once', createsMirror: true, waitForLock: false, facts: metrics?.facts }, async (deps, signal, deadline) => {
      const results: JobOutcome[] = [];
      for (const step of steps) {
        if (signal.aborted) break;
        // The export reads only the mirror, so it still runs; a verify or a push would only find the same closed door.
        const stopped = results.find((earlier) => earlier.stopsRun !== undefined)?.stopsRun;
        if (step !== 'export' && stopped !== undefined) {
          const outcome: JobOutcome = { job: step, ok: false, summary: `${step}: skipped: ${stopped}${step === 'push' ? '; the queued jobs wait for the next run' : ''}` };
          ctx.stdout.write(`SKIP ${outcome.summary}\n`);
          results.push(outcome);
          continue;
        }
        const notDue = step === 'export' && values['export-daily'] ? exportNotDue(deps, new Date()) : step === 'verify' && values['verify-daily'] ? verifyNotDue(deps, new Date()) : null;
        const outcome = notDue ?? (await runJobThenSave(step, deps, signal, { acceptRemovals: values['accept-removals'] === true, exportSignal: deadline }));
        ctx.stdout.write(`${outcome.ok ? 'ok  ' : 'FAIL'} ${outcome.summary}\n`);
        results.push(outcome);
      }
      // Not under the shutdown signal: a run stopped by SIGTERM must still report to its program's group (a group
      // named "unknown" would stay on the Pushgateway, and hold its alerts, for ever).
      if (gateway !== undefined) programId = await programOf(deps.client, AbortSignal.timeout(PROGRAM_LOOKUP_MS));
      return results;
    });
    ok = outcomes.length === steps.length && outcomes.every((outcome) => outcome.ok);
  } finally {
    // Also after a failure (even one that throws): a failed run is what an alert needs to see.
    if (metrics !== null) ok = (await deliver(ctx, metrics.registry, { metricsFile, gateway, programId, replaceGroup: true })) && ok;
  }
  return ok ? EXIT_OK : EXIT_FAILED;
}

/**
 * With --export-daily: the outcome of a skipped export when today's full export of the configured formats
 * has already reached the configured place, else null (the export is due). The skip still reports that
 * export's time, so the metrics of this run say how old the newest export is.
 */
function exportNotDue(deps: WorkerDeps, now: Date): JobOutcome | null {
  const place = configuredPlace(deps.config);
  const last = lastFullExport(deps.db, deps.config.export.formats, place);
  if (last === null || !sameCalendarDay(new Date(last.finishedAt), now, deps.config.schedule.timezone)) return null;
  deps.facts?.exportSucceeded({ finishedAt: new Date(last.finishedAt), files: [] });
  return { job: 'export', ok: true, summary: `export: not due (--export-daily): today's full export ${last.runId} to ${describePlace(place)} finished at ${last.finishedAt}` };
}

/**
 * With --verify-daily: the outcome of a skipped verify when today's has already run, else null (it is due). The
 * worker reported that verify's figures when it opened the mirror, so the metrics of a skipped run still carry them.
 */
function verifyNotDue(deps: WorkerDeps, now: Date): JobOutcome | null {
  const last = lastCompleteVerify(deps.db, deps.config.sync.streams);
  if (last === null || !sameCalendarDay(new Date(last.finishedAt), now, deps.config.schedule.timezone)) return null;
  const found = last.ok ? 'no defects' : 'DEFECTS: `loyalty-sync status` shows them, `verify --full` or `verify --ledger` names them';
  return { job: 'verify', ok: true, summary: `verify: not due (--verify-daily): today's verify finished at ${last.finishedAt} (${found})` };
}

/**
 * With a state in the bucket (`state.url`), another run holds its lease and is doing this run's work:
 * one line says who and until when, and the run exits 0. The metrics it hands over are the state's
 * alone (the skip counted, the state's last save by its log), since it never opened the mirror;
 * pushed, they replace only those families of the program's group, which keeps what the last run that
 * did the work reported (its syncs, queue and exports), so the other alerts go on reading them.
 */
async function skipForHeldLease(ctx: CommandContext, held: LeaseHeldError, to: { metricsFile?: string; gateway?: string }): Promise<number> {
  ctx.stdout.write(`once: skipped: the state at ${ctx.config.state.url} is leased to ${held.holder} until ${held.until}.\n`);
  if (to.metricsFile === undefined && to.gateway === undefined) return EXIT_OK;
  const metrics = createStateMetrics();
  ctx.stateFacts?.attach(metrics.state);
  let programId = UNKNOWN_PROGRAM;
  if (to.gateway !== undefined) {
    const client = createClient(ctx);
    try {
      programId = await programOf(client);
    } finally {
      await client.close();
    }
  }
  return (await deliver(ctx, metrics.registry, { ...to, programId, replaceGroup: false })) ? EXIT_OK : EXIT_FAILED;
}

/**
 * Writes and pushes the run's metrics; false only when the metrics file could not be written. With
 * `replaceGroup` the push replaces the program's whole group, else only the families it carries.
 */
async function deliver(ctx: CommandContext, registry: Registry, to: { metricsFile?: string; gateway?: string; programId: string; replaceGroup: boolean }): Promise<boolean> {
  let written = true;
  if (to.metricsFile !== undefined) {
    try {
      await writeMetricsFile(to.metricsFile, registry);
    } catch (error) {
      ctx.stderr.write(`loyalty-sync: could not write the metrics file ${to.metricsFile} (--metrics-file): ${describeError(error)}.\n`);
      written = false;
    }
  }
  if (to.gateway !== undefined) {
    const plain = plainHttpWarning(to.gateway, 'The Pushgateway');
    if (plain !== null) ctx.logger.warn(plain);
    try {
      await pushToGateway(to.gateway, to.programId, registry, to.replaceGroup ? 'PUT' : 'POST');
    } catch (error) {
      const shown = gatewayForDisplay(to.gateway);
      ctx.logger.warn({ pushgateway: shown }, `could not push the metrics to the Pushgateway at ${shown}: ${describeError(error)}`);
    }
  }
  return written;
}

/** The Pushgateway groups by program; the credential's identity names it. */
/** How long the run waits for whoami to name the Pushgateway group: a few seconds inside any shutdown deadline. */
const PROGRAM_LOOKUP_MS = 5_000;

async function programOf(client: ApiClient, signal?: AbortSignal): Promise<string> {
  try {
    const identity = await client.whoami({ signal, retry: false });
    const id = 'program_id' in identity ? identity.program_id : undefined;
    return typeof id === 'number' || (typeof id === 'string' && id !== '') ? String(id) : UNKNOWN_PROGRAM;
  } catch {
    return UNKNOWN_PROGRAM;
  }
}

function gatewayUrl(value: string): string {
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    // Reported below.
  }
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new UsageError(`--pushgateway is "${url === null ? value : gatewayForDisplay(value)}"; expected an http(s) URL such as http://pushgateway:9091.`);
  }
  return value;
}
