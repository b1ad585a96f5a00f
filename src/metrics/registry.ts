import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { type Config, type ExportFormat, type StreamName } from '../config.js';
import { JOB_KINDS, JOB_STATES } from '../queue/types.js';
import { DRIFT_KINDS } from '../drift/types.js';
import { PUBLICATION_OUTCOMES, PUSH_OUTCOMES, SYNC_CHANGES, SYNC_OUTCOMES, VERIFY_CLASSES, type OpsFacts, type StateMetricsFacts } from './facts.js';
import { registerStateMetrics } from './stateMetrics.js';
import { INBOX_FILE_OUTCOMES } from '../state/inbox/inboxCounts.js';
import { DEFAULT_EXPORT_TABLES } from '../export/schema.js';

/** The metrics of one process: a registry of its own (never prom-client's global one) and the facts that feed it. */
export interface Metrics {
  registry: Registry;
  facts: OpsFacts;
  /** What the state in the bucket (state.url) tells: restores, saves, skips. */
  state: StateMetricsFacts;
}

const LINT_FAILING_DEFAULTS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/** Seconds; an API call is usually well under a second, a page of a slow API a few. */
const API_SECONDS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Seconds; a stream's sync runs from under a second (nothing new) to an hour (a first full read). */
const SYNC_SECONDS = [0.5, 1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600];

/** Label values known before anything happens (from the config): their counters start at 0. */
export interface KnownLabelValues {
  /** The configured streams (`sync.streams`), synced and exported by the scheduled jobs. */
  streams: readonly StreamName[];
  /** The configured export formats (`export.formats`). */
  formats: readonly ExportFormat[];
  /** Whether the scheduled exports publish to a bucket (`export.url` is set). */
  publishes: boolean;
  /** Whether the mirror's state is kept in a bucket (`state.url` is set). */
  keepsState: boolean;
}

export function knownLabelValues(config: Readonly<Pick<Config, 'sync' | 'export' | 'state'>>): KnownLabelValues {
  return { streams: config.sync.streams, formats: config.export.formats, publishes: config.export.url !== '', keepsState: config.state.url !== '' };
}

/**
 * Builds every metric family of the operations contract (README, Operations) on a fresh registry,
 * plus prom-client's process and Node.js metrics, and maps the facts onto them. Every label value
 * comes from a closed set (stream, table, format, job kind and state, endpoint template, HTTP
 * status), so the number of series does not grow with the data.
 *
 * Counters whose label values are `known` ahead start at 0, so a `rate()` or `increase()` sees their
 * first event (a series that appears from nothing hides it). Timestamps of successes are absent until
 * one is known, never 0, which would read as an event of 1970.
 */
export function createMetrics(known?: KnownLabelValues): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // These three are gauges named like counters, which `promtool check metrics` rejects; the same
  // figures stay available per type as nodejs_active_handles, _requests and _resources.
  for (const name of LINT_FAILING_DEFAULTS) registry.removeSingleMetric(name);
  const registers = [registry];

  const syncRows = new Counter({ name: 'loyalty_sync_rows_total', help: 'Rows a sync stored, by stream and change (inserted, updated, removed).', labelNames: ['stream', 'change'], registers });
  const syncRuns = new Counter({ name: 'loyalty_sync_runs_total', help: 'Stream syncs that ended, by stream and outcome (succeeded, failed).', labelNames: ['stream', 'outcome'], registers });
  const syncLastSuccess = new Gauge({ name: 'loyalty_sync_last_success_timestamp_seconds', help: 'Unix time of the last successful sync of the stream.', labelNames: ['stream'], registers });
  const syncDuration = new Histogram({ name: 'loyalty_sync_duration_seconds', help: "Duration of a stream's sync.", labelNames: ['stream'], buckets: SYNC_SECONDS, registers });
  const mirrorRows = new Gauge({ name: 'loyalty_mirror_rows', help: 'Rows in the mirror table (unsubscribes: addresses currently on the list).', labelNames: ['table'], registers });
  const apiRequests = new Counter({ name: 'loyalty_api_requests_total', help: 'HTTP exchanges with the API, retries included, by endpoint template and status (or error when no status arrived).', labelNames: ['endpoint', 'status'], registers });
  const apiRateLimited = new Counter({ name: 'loyalty_api_rate_limited_total', help: 'API responses with status 429.', registers });
  const apiDuration = new Histogram({ name: 'loyalty_api_request_duration_seconds', help: 'Duration of an HTTP exchange with the API, by endpoint template.', labelNames: ['endpoint'], buckets: API_SECONDS, registers });
  const queueJobs = new Gauge({ name: 'loyalty_queue_jobs', help: 'Jobs in the write queue, by state (as of the last push).', labelNames: ['state'], registers });
  const oldestUnknown = new Gauge({ name: 'loyalty_queue_oldest_unknown_timestamp_seconds', help: 'Unix time the longest-unknown job of the write queue became unknown; absent when no job is unknown.', registers });
  const pushJobs = new Counter({ name: 'loyalty_push_jobs_total', help: 'Jobs a push finished with, by kind and outcome (succeeded, dead, unknown, retried).', labelNames: ['kind', 'outcome'], registers });
  const exportLastSuccess = new Gauge({ name: 'loyalty_export_last_success_timestamp_seconds', help: 'Unix time of the last successful export.', registers });
  const exportRows = new Counter({ name: 'loyalty_export_rows_total', help: 'Rows written by successful exports, by table and format.', labelNames: ['table', 'format'], registers });
  const exportBytes = new Counter({ name: 'loyalty_export_bytes_total', help: 'Bytes written by successful exports, by table and format.', labelNames: ['table', 'format'], registers });
  const verifyDifferences = new Gauge({
    name: 'loyalty_verify_differences',
    help: 'Differences the last verify left, by stream and class: pending (a pass of the sync brings it) or defect (none will).',
    labelNames: ['stream', 'class'],
    registers,
  });
  const verifyLastRun = new Gauge({ name: 'loyalty_verify_last_run_timestamp_seconds', help: 'Unix time the last verify finished.', registers });
  const verifyLastOk = new Gauge({ name: 'loyalty_verify_last_run_ok', help: '1 when the last verify left no defect and verified every stream, else 0.', registers });
  const deepLastSuccess = new Gauge({ name: 'loyalty_deep_refresh_last_success_timestamp_seconds', help: 'Unix time the last deep refresh of the stream completed.', labelNames: ['stream'], registers });
  const deepPages = new Gauge({ name: 'loyalty_deep_refresh_pages', help: 'Pages the deep refresh under way has read so far; 0 when none is under way.', labelNames: ['stream'], registers });
  const deepStarted = new Gauge({
    name: 'loyalty_deep_refresh_started_timestamp_seconds',
    help: 'Unix time the deep refresh under way began; absent when none is under way.',
    labelNames: ['stream'],
    registers,
  });
  // A gauge without labels starts at 0 in prom-client; no sample until a time is known.
  exportLastSuccess.remove();
  oldestUnknown.remove();
  verifyLastRun.remove();
  verifyLastOk.remove();
  const ledgerDefects = new Gauge({
    name: 'loyalty_ledger_defects',
    help: "Balances (a customer's approved or pending points) the last reconciliation of the points ledger found unequal to the sum of the customer's transactions, differences a read in flight explains left out; absent before any.",
    registers,
  });
  ledgerDefects.remove();

  // Publications and schema drift (issue 26).
  const publications = new Counter({ name: 'loyalty_export_publications_total', help: 'Publications of export runs to their bucket target, by outcome (completed, failed).', labelNames: ['outcome'], registers });
  const publicationLastFailure = new Gauge({
    name: 'loyalty_export_publication_last_failure_timestamp_seconds',
    help: 'Unix time the newest publication to the bucket target (export.url) failed; absent when none did.',
    registers,
  });
  const schemaDrift = new Gauge({
    name: 'loyalty_schema_drift_findings',
    help: 'Schema drift the mirror recorded, by stream and kind: field paths (field), enum values (enum_value) and paths of values that do not parse as their type (type) the API spec does not allow.',
    labelNames: ['stream', 'kind'],
    registers,
  });
  publicationLastFailure.remove();
  const inboxFiles = new Gauge({
    name: 'loyalty_inbox_files',
    help: 'With state.url: files in the write inbox as of its last listing, by outcome (imported, refused, duplicate: bytes another name brought first).',
    labelNames: ['outcome'],
    registers,
  });

  // The state in the bucket (issue 27).
  const state = registerStateMetrics(registry, known?.keepsState);

  if (known !== undefined) {
    for (const stream of known.streams) {
      for (const change of SYNC_CHANGES) syncRows.inc({ stream, change }, 0);
      for (const outcome of SYNC_OUTCOMES) syncRuns.inc({ stream, outcome }, 0);
    }
    for (const kind of JOB_KINDS) for (const outcome of PUSH_OUTCOMES) pushJobs.inc({ kind, outcome }, 0);
    // The scheduled exports write every stream table and every model table in every configured format.
    for (const table of DEFAULT_EXPORT_TABLES) {
      for (const format of known.formats) {
        exportRows.inc({ table, format }, 0);
        exportBytes.inc({ table, format }, 0);
      }
    }
    if (known.publishes) for (const outcome of PUBLICATION_OUTCOMES) publications.inc({ outcome }, 0);
    if (known.keepsState) for (const outcome of INBOX_FILE_OUTCOMES) inboxFiles.set({ outcome }, 0);
  }

  const facts: OpsFacts = {
    apiRequest(endpoint, outcome, seconds) {
      apiRequests.inc({ endpoint, status: String(outcome) });
      apiDuration.observe({ endpoint }, seconds);
      if (outcome === 429) apiRateLimited.inc();
    },
    streamSynced(fact) {
      const { stream } = fact;
      syncRows.inc({ stream, change: 'inserted' }, fact.inserted);
      syncRows.inc({ stream, change: 'updated' }, fact.updated);
      syncRows.inc({ stream, change: 'removed' }, fact.removed);
      syncRuns.inc({ stream, outcome: fact.outcome });
      syncDuration.observe({ stream }, fact.seconds);
      if (fact.outcome === 'succeeded') syncLastSuccess.set({ stream }, fact.finishedAt.getTime() / 1000);
    },
    mirrorRows(table, rows) {
      mirrorRows.set({ table }, rows);
    },
    pushJobEnded(kind, outcome) {
      pushJobs.inc({ kind, outcome });
    },
    inboxCounted(counts) {
      for (const outcome of INBOX_FILE_OUTCOMES) inboxFiles.set({ outcome }, counts[outcome]);
    },
    queueCounted(counts, oldestUnknownAt) {
      for (const state of JOB_STATES) queueJobs.set({ state }, counts[state]);
      // No sample rather than 0 when none is unknown, so `time() - x` never reads as a 56-year-old job.
      if (oldestUnknownAt === null) oldestUnknown.remove();
      else oldestUnknown.set(oldestUnknownAt.getTime() / 1000);
    },
    exportSucceeded(fact) {
      for (const file of fact.files) {
        exportRows.inc({ table: file.table, format: file.format }, file.rows);
        exportBytes.inc({ table: file.table, format: file.format }, file.bytes);
      }
      exportLastSuccess.set(fact.finishedAt.getTime() / 1000);
    },
    verifyFinished(fact) {
      // Only the last verify's streams: one that verified fewer streams leaves no figure of an older run behind.
      verifyDifferences.reset();
      for (const stream of fact.streams) for (const kind of VERIFY_CLASSES) verifyDifferences.set({ stream: stream.stream, class: kind }, stream[kind]);
      verifyLastRun.set(fact.finishedAt.getTime() / 1000);
      verifyLastOk.set(fact.ok ? 1 : 0);
    },
    ledgerChecked(defects) {
      ledgerDefects.set(defects);
    },
    deepRefreshRead(facts) {
      for (const { stream, lastSuccessAt, pages, startedAt } of facts) {
        deepPages.set({ stream }, pages);
        if (startedAt === null) deepStarted.remove({ stream });
        else deepStarted.set({ stream }, startedAt.getTime() / 1000);
        if (lastSuccessAt === null) deepLastSuccess.remove({ stream });
        else deepLastSuccess.set({ stream }, lastSuccessAt.getTime() / 1000);
      }
    },
    lastSuccessesRead(fact) {
      for (const { stream, at } of fact.syncs) syncLastSuccess.set({ stream }, at.getTime() / 1000);
      if (fact.export !== null) exportLastSuccess.set(fact.export.getTime() / 1000);
    },
    publicationEnded(outcome, at) {
      publications.inc({ outcome });
      if (outcome === 'failed') publicationLastFailure.set(at.getTime() / 1000);
    },
    lastPublicationFailureRead(at) {
      if (at !== null) publicationLastFailure.set(at.getTime() / 1000);
    },
    schemaDriftCounted(stream, counts) {
      for (const kind of DRIFT_KINDS) schemaDrift.set({ stream, kind }, counts[kind]);
    },
  };
  return { registry, facts, state };
}
