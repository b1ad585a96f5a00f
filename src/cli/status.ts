import { existsSync } from 'node:fs';
import type { Config } from '../config.js';
import { StateError } from '../state/errors.js';
import type { StateSession } from '../state/session.js';
import type { Db } from '../db/open.js';
import { lastExport, lastPublication, type LastExport, type LastPublication } from '../export/index.js';
import { deltaTables, type DeltaTableStatus } from '../export/delta/deltaStatus.js';
import { JOB_STATES, queueCounts, type QueueCounts } from '../queue/index.js';
import { readLockHolder, type LockHolder } from '../runtime/lock.js';
import { listDrift, type DriftEntry } from '../drift/index.js';
import { formatAge } from '../formatAge.js';
import { checkHealth } from '../health/checkHealth.js';
import { readSyncStatus, type StreamStatus } from '../sync/index.js';
import { countInboxFiles, refusedInboxFiles, type InboxFileOutcome } from '../state/inbox/index.js';
import { renderStateStatus, stateStatus, type StateStatus } from '../state/stateStatus.js';
import { readDeepRefreshStatus, type DeepRefreshStatus } from '../sync/deepRefreshStatus.js';
import { lastVerify, type LastVerify } from '../verify/index.js';
import { lastLedgerCheck, ledgerVerdict, type LedgerCheckRecord } from '../ledger/ledgerChecks.js';
import { describeDifference } from '../verify/renderReport.js';
import { parseCommandArgs } from './args.js';
import { readMirror, type CommandContext } from './context.js';
import { EXIT_FAILED, EXIT_OK } from './errors.js';

const USAGE = `Usage: loyalty-sync status [--json] [--check]

Show what an operator asks first:
  per stream: rows in the mirror, watermark, last success and its age (the lag), last error;
  the deep refresh of orders and activities: the last one (started, completed, rows it marked
    removed), the one under way (pages and rows so far), and when the next is due;
  the write queue: jobs per state and the oldest queued job;
  the last export and its manifest;
  the last publication to object storage: target, run, files, bytes, when, and whether it completed;
  each Delta table (export --format delta): its place, version, active files and bytes, last commit;
  the last verify: when, full or sampled, rows compared, differences found and repaired;
  the last reconciliation of the points ledger (verify --ledger, and every verify): customers,
    balanced, pending, and the first defects;
  whether a loyalty-sync process (e.g. \`run\`) holds the mirror's writer lock;
  schema drift: fields the API spec does not list, and values outside a listed enum, per stream,
    with an example (emails masked), when first and last seen, and in how many records;
  with state.url: the state in the bucket, its last save and size, and who holds its lease until when.

With --check, it checks instead, for probes and cron alerts: one line per finding and exit 1 when
  a configured stream's last successful sync is older than health.maxSyncAgeMinutes (default 60),
  a write job is dead,
  a job has been unknown for longer than health.maxUnknownAgeHours (default 24),
  or the export the config asks for is due: the last full export of export.formats to export.url's bucket
  (else the export folder) is older than health.maxExportAgeHours (default 26); or there is none there
  yet and runs there all failed, or, where exports are configured (export.url set, or this mirror has
  exported before), the mirror first synced longer ago than that;
  or no deep refresh of orders or activities has completed for twice sync.deepRefreshIntervalHours
  (default 24, so 48 hours; or one has been under way that long without any ever completing);
  or, with state.url, a file in the write inbox was refused (it queued nothing; its problems are in the
  .errors.txt file beside it);
otherwise one line and exit 0 (saying "no export yet" when there is none and none is due).

Options:
  --json   print the same as one JSON object (with --check: the findings as a JSON list)
  --check  exit 1 with one line per finding when the mirror is unhealthy
  --help   show this help
`;

/** Everything `status` reports; each part of the product adds its own section here. */
export interface StatusReport {
  generatedAt: string;
  streams: StreamStatus[];
  /** The deep refresh of each configured stream it reads whole (orders, activities). */
  deepRefresh: DeepRefreshStatus[];
  queue: QueueCounts;
  lastExport: LastExport | null;
  /** The newest publication to object storage (export.url or --to), complete or not. */
  lastPublication: LastPublication | null;
  /** Each Delta table per place, as the newest export that wrote Delta left it. */
  delta: DeltaTableStatus[];
  /** The newest `verify` run, finished or not. */
  lastVerify: LastVerify | null;
  /** The newest reconciliation of the transactions with the customers' balances (verify --ledger, every verify). */
  lastLedgerCheck: LedgerCheckRecord | null;
  /** The process holding the writer lock (syncing or pushing), or null. */
  lock: LockHolder | null;
  /** What the API's records carried beyond the spec (the key's spelling is fixed by issue 14). */
  schema_drift: DriftEntry[];
  /** The state in the bucket (state.url): where, its last save and size, its lease; null without state.url. */
  state: StateStatus | null;
  /** With state.url: the write inbox's files as of its last listing, by outcome, and the paths of those refused; null without state.url. */
  inbox: { files: Record<InboxFileOutcome, number>; refused: string[] } | null;
}

export function collectStatus(db: Db, config: Readonly<Config>, now: Date = new Date(), state?: StateSession): StatusReport {
  return {
    generatedAt: now.toISOString(),
    streams: readSyncStatus(db, now),
    deepRefresh: readDeepRefreshStatus(db, config.sync, now),
    queue: queueCounts(db),
    lastExport: lastExport(db),
    lastPublication: lastPublication(db),
    delta: deltaTables(db),
    lastVerify: lastVerify(db),
    lastLedgerCheck: lastLedgerCheck(db),
    lock: readLockHolder(db, undefined, now),
    schema_drift: listDrift(db),
    state: state === undefined ? null : stateStatus(state.place.url, state.newest, now),
    inbox: config.state.url === '' ? null : { files: countInboxFiles(db), refused: refusedInboxFiles(db) },
  };
}

/** One text block per section of the report, blank-line separated; a new section adds its block here. */
export function renderStatus(status: StatusReport): string {
  const sections = [renderStreams(status.streams), renderDeepRefresh(status.deepRefresh), renderQueue(status.queue), renderExport(status.lastExport), renderPublication(status.lastPublication), renderDelta(status.delta), renderVerify(status.lastVerify), renderLedgerCheck(status.lastLedgerCheck), renderLock(status.lock), renderDrift(status.schema_drift), ...(status.state === null ? [] : [renderStateStatus(status.state)]), ...(status.inbox === null ? [] : [renderInbox(status.inbox)])];
  return `${sections.join('\n\n')}\n`;
}

function renderQueue(queue: QueueCounts): string {
  const counts = JOB_STATES.map((state) => `${state} ${queue[state]}`).join(', ');
  const oldest = queue.oldestQueuedAt === null ? '' : `\noldest queued job: ${queue.oldestQueuedAt}`;
  return `Write queue\n${counts}${oldest}`;
}

function renderExport(last: LastExport | null): string {
  if (last === null) return 'Last export\nnone yet';
  return `Last export\n${last.runId} (${last.kind}) finished ${last.finishedAt}\nmanifest: ${last.manifestPath}`;
}

function renderPublication(last: LastPublication | null): string {
  if (last === null) return 'Last publication\nnone (exports stay local unless export.url or --to names a bucket)';
  const when = last.finishedAt === null ? `started ${last.startedAt}` : `finished ${last.finishedAt}`;
  const outcome = last.status === 'completed' ? 'completed' : `${last.status.toUpperCase()}${last.error ? `: ${last.error}` : ''}`;
  return `Last publication\n${last.target} run ${last.runId}: ${outcome}\n${last.files} files, ${last.bytes} bytes, ${when}${last.manifestUrl ? `\nmanifest: ${last.manifestUrl}` : ''}`;
}

function renderVerify(last: LastVerify | null): string {
  if (last === null) return 'Last verify\nnone yet (loyalty-sync verify)';
  const what = `${last.mode === 'full' ? 'full' : 'sampled'}${last.repair ? ' with repair' : ''}`;
  if (last.status === 'running') return `Last verify\n${what}, started ${last.startedAt}, still running (or killed)`;
  const outcome = last.status === 'failed' ? `FAILED: ${last.error ?? 'unknown error'}` : last.ok ? 'ok' : 'DIFFERENCES REMAIN';
  const repaired = last.repair && last.differences > 0 ? ' (repaired)' : '';
  const found = `${last.compared} rows compared, ${last.differences} defects${repaired}, ${last.pending} pending (${last.unsynced} at the next sync), ${last.requests} requests`;
  return `Last verify\n${what} finished ${last.finishedAt ?? '-'}: ${outcome}\n${found}`;
}

function renderLedgerCheck(last: LedgerCheckRecord | null): string {
  if (last === null) return 'Last ledger reconciliation\nnone yet (loyalty-sync verify --ledger)';
  const verdict = ledgerVerdict(last);
  const outcome = verdict === 'defects' ? `${last.defects} DEFECTS` : verdict === 'balanced' ? 'ok' : `${verdict.toUpperCase()} (no customer compared)`;
  const examples = last.examples.slice(0, 5).map((d) => `\n  ${describeDifference(d)}`);
  return `Last ledger reconciliation\n${last.checked_at}: ${outcome}; ${last.customers} customers, ${last.balanced} balanced, ${last.pending} pending${examples.join('')}`;
}

function renderLock(holder: LockHolder | null): string {
  if (holder === null) return 'Writer lock\nfree';
  return `Writer lock\nheld by ${holder.command} (pid ${holder.pid} on ${holder.hostname}) since ${holder.acquiredAt}, lease until ${holder.expiresAt}`;
}

function renderDrift(entries: DriftEntry[]): string {
  if (entries.length === 0) return 'Schema drift\nnone: every record synced so far matches the fields and enum values of the spec';
  const header = ['stream', 'kind', 'path', 'example', 'records', 'first seen', 'last seen'];
  const rows = entries.map((e) => [e.stream, e.kind, e.path, e.example, String(e.count), e.first_seen_at, e.last_seen_at]);
  return ['Schema drift', ...alignedLines(header, rows)].join('\n');
}

/** Status's flags, checked (UsageError), without I/O: run before the state is restored, and by the command. */
export function parseStatusArgs(argv: string[]) {
  const { values } = parseCommandArgs('status', argv, { json: { type: 'boolean' }, check: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } });
  return { values, help: values.help === true };
}

export async function statusCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const { values } = parseStatusArgs(argv);
  if (values.help) {
    ctx.stdout.write(USAGE);
    return EXIT_OK;
  }
  if (ctx.state !== undefined && !ctx.state.exists && !existsSync(ctx.config.db.path)) {
    throw new StateError(`There is no state at ${ctx.state.place.url}: nothing was ever saved there (state.url); the first sync, once or run there creates it.`);
  }
  const db = readMirror(ctx);
  try {
    if (values.check) {
      const { findings, exports } = checkHealth(db, ctx.config);
      if (values.json) ctx.stdout.write(`${JSON.stringify(findings, null, 2)}\n`);
      else ctx.stdout.write(findings.length === 0 ? `healthy: streams synced, no dead or long-unknown jobs, ${exports}, deep refreshes on time\n` : `${findings.map((finding) => finding.message).join('\n')}\n`);
      return findings.length === 0 ? EXIT_OK : EXIT_FAILED;
    }
    const status = collectStatus(db, ctx.config, new Date(), ctx.state);
    ctx.stdout.write(values.json ? `${JSON.stringify(status, null, 2)}\n` : renderStatus(status));
    return EXIT_OK;
  } finally {
    db.close();
  }
}

function renderInbox(inbox: NonNullable<StatusReport['inbox']>): string {
  const { imported, refused, duplicate } = inbox.files;
  const counts = `files as of the last push: ${imported} imported, ${refused} refused, ${duplicate} duplicate`;
  return ['Write inbox', counts, ...inbox.refused.map((path) => `REFUSED ${path}: nothing queued; see the .errors.txt file beside it`)].join('\n');
}

function renderDelta(tables: DeltaTableStatus[]): string {
  if (tables.length === 0) return 'Delta tables\nnone (export --format delta, or delta in export.formats, keeps one per stream)';
  const header = ['table', 'version', 'files', 'bytes', 'rows', 'last commit', 'location'];
  const rows = tables.map((t) => [t.table, String(t.version), String(t.files), String(t.bytes), String(t.rows), t.lastCommitAt ?? '-', t.location]);
  return ['Delta tables', ...alignedLines(header, rows)].join('\n');
}

function renderStreams(streams: StreamStatus[]): string {
  const header = ['stream', 'rows', 'watermark', 'last success', 'age', 'last error'];
  const rows = streams.map((s) => [
    s.stream,
    s.removed === undefined ? String(s.rows) : `${s.rows} (+${s.removed} removed)`,
    s.watermark ?? '-',
    s.lastSuccessAt ?? 'never',
    s.ageSeconds === null ? '-' : formatAge(s.ageSeconds),
    errorText(s),
  ]);
  return ['Streams', ...alignedLines(header, rows)].join('\n');
}

function renderDeepRefresh(streams: DeepRefreshStatus[]): string {
  if (streams.length === 0) return 'Deep refresh\nnone: neither orders nor activities is in sync.streams';
  const header = ['stream', 'last started', 'completed', 'removed', 'under way', 'next due'];
  const rows = streams.map((s) => [
    s.stream,
    s.last?.startedAt ?? 'never',
    s.last?.completedAt ?? '-',
    s.last === null || s.last.removed === null ? '-' : String(s.last.removed),
    s.underWay === null ? '-' : `${s.underWay.pages} pages, ${s.underWay.rows} rows since ${s.underWay.startedAt ?? '-'}`,
    `${s.dueAt ?? (s.underWay === null ? 'at the next sync' : 'continues at the next sync')}${s.overdue ? ' (OVERDUE)' : ''}${s.lastError === null ? '' : `; last error ${s.lastError.at}: ${s.lastError.message}`}`,
  ]);
  return ['Deep refresh', ...alignedLines(header, rows)].join('\n');
}

/** A header and rows as lines of columns padded to a common width. */
function alignedLines(header: string[], rows: string[][]): string[] {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]): string => cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]))).join('  ').trimEnd();
  return [line(header), ...rows.map(line)];
}

function errorText(s: StreamStatus): string {
  const parts: string[] = [];
  if (s.lastError !== null) {
    const old = s.lastSuccessAt !== null && s.lastSuccessAt > s.lastError.at;
    parts.push(`${s.lastError.at}: ${s.lastError.message}${old ? ' (since recovered)' : ''}`);
  }
  if (s.resumable) parts.push('an interrupted run will resume');
  return parts.length === 0 ? '-' : parts.join('; ');
}
