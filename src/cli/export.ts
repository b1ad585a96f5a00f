import { join, resolve } from 'node:path';
import { ConfigError, EXPORT_FORMATS, type ExportFormat } from '../config.js';
import { redact } from '../log.js';
import { EXPORT_TABLES, isExportTable, runExport, type ExportTable } from '../export/index.js';
import { parseBucketPlace, type BucketPlace } from '../bucket/place.js';
import { parseCommandArgs } from './args.js';
import { openMirror, type CommandContext } from './context.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError } from './errors.js';

const USAGE = `Usage: loyalty-sync export [--format csv,parquet,delta] [--table NAME]... [--since-last] [--to s3://BUCKET/PREFIX]

Write one consistent snapshot of the mirror: every file is read inside one SQLite read
transaction, written under a temporary name and renamed into place, and the manifest
(EXPORT_DIR/manifests/RUNID.json) is written last, then copied to the pointer of its kind:
manifests/latest.json for a complete run (every stream table, every row), latest-partial.json
for a run of some tables (--table), latest-changes.json for a run of changes (--since-last).

With a target (--to, or config export.url / LOYALTY_EXPORT_URL), the run is also published to
S3-compatible object storage with the same layout under PREFIX: every data file is uploaded and
confirmed first, then manifests/RUNID.json, then the pointer, so a loader that starts from a
manifest never sees a partial run. Leftovers of failed runs are removed by the next export;
export.retainRuns applies in the bucket too. Credentials come only from the AWS provider chain
(AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, web identity, container or instance role);
the endpoint from export.s3.endpoint, AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL.

With delta (--format delta, or delta in export.formats), each stream table is also kept as a Delta
Lake table at EXPORT_DIR/delta/TABLE (and PREFIX/delta/TABLE in the bucket) that equals the mirror
after the run: the run commits one new version per table that changed, with only the files that
hold changed rows written again. A path holding anything else is refused (exit 1) and left alone.

Options:
  --format LIST   any of csv, parquet, delta, comma-separated (default: config export.formats)
  --table NAME    export only this table (repeatable): ${EXPORT_TABLES.join(', ')}
                  (default: the five streams and the three ledger tables;
                  write_jobs only when named)
  --since-last    only rows inserted or changed since the previous successful export
                  (CSV and Parquet; a Delta table always takes only what changed)
  --to URL        publish to s3://BUCKET/PREFIX (default: config export.url; none keeps it local)
  --help          show this help

Exit codes: 0 written (and published); 1 the export or its publication failed; 2 bad usage.
`;

/** Export's flags, checked (UsageError), without I/O: run before the state's lease is taken, and by the command. */
export function parseExportArgs(argv: string[]) {
  const { values } = parseCommandArgs('export', argv, {
    format: { type: 'string' },
    table: { type: 'string', multiple: true },
    'since-last': { type: 'boolean' },
    to: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return { values, help: true, formats: undefined, tables: undefined, target: undefined };
  const formats = values.format === undefined ? undefined : parseFormats(values.format);
  const tables = values.table?.map(parseTable);
  const target = values.to === undefined ? undefined : parseTarget(values.to);
  return { values, help: false, formats, tables, target };
}

/** `export`: prints the manifest path and one line per file; exit 1 with one sentence on failure. */
export async function exportCommand(argv: string[], ctx: CommandContext): Promise<number> {
  const { values, formats, tables, target } = parseExportArgs(argv);
  if (values.help) {
    ctx.stdout.write(USAGE);
    return EXIT_OK;
  }

  const db = openMirror(ctx);
  // Ctrl-C or SIGTERM stops between chunks and removes the run's temporary files; a second signal kills as usual.
  const stop = new AbortController();
  const onSignal = (): void => stop.abort(new Error('the export was stopped by a signal'));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const report = await runExport({ db, config: ctx.config, logger: ctx.logger, formats, tables, target, sinceLast: values['since-last'] === true, signal: stop.signal });
    const { publication } = report;
    if (publication === null || publication.keptLocal) ctx.stdout.write(`manifest: ${report.manifestPath} (${report.kind})\n`);
    if (publication !== null) ctx.stdout.write(`published: ${publication.manifestUrl} (${report.kind}, ${publication.files} files, ${publication.bytes} bytes)\n`);
    const base = publication !== null && !publication.keptLocal ? publication.url : resolve(ctx.config.export.dir);
    for (const file of report.files) {
      ctx.stdout.write(`${file.table} ${file.format}: ${file.rows} rows, ${file.bytes} bytes, ${publication !== null && !publication.keptLocal ? `${base}/${file.path}` : join(base, file.path)}\n`);
    }
    return EXIT_OK;
  } catch (error) {
    ctx.stderr.write(`loyalty-sync: ${redact(error instanceof Error ? error.message : String(error))}\n`);
    ctx.logger.debug({ err: error }, 'export failed');
    return error instanceof ConfigError ? EXIT_USAGE : EXIT_FAILED;
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    db.close();
  }
}

function parseFormats(value: string): ExportFormat[] {
  const formats = value.split(',').map((part) => part.trim()).filter((part) => part !== '');
  if (formats.length === 0) throw new UsageError(`--format is "${value}"; expected csv, parquet, delta or a comma-separated mix.`);
  return formats.map((format) => {
    const found = EXPORT_FORMATS.find((name) => name === format);
    if (found === undefined) throw new UsageError(`--format contains "${format}"; expected ${EXPORT_FORMATS.join(', ')} (comma-separated).`);
    return found;
  });
}

function parseTarget(value: string): BucketPlace {
  try {
    return parseBucketPlace(value, '--to');
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function parseTable(value: string): ExportTable {
  if (!isExportTable(value)) throw new UsageError(`--table is "${value}"; expected one of ${EXPORT_TABLES.join(', ')}.`);
  return value;
}
