import type { StreamName } from '../config.js';
import type { MistypedColumn } from '../db/upsertRecords.js';
import type { Logger } from '../log.js';
import type { ColumnType } from '../streams/index.js';
import type { DriftFinding } from './types.js';

/**
 * One warning per finding that `recordDrift` saw for the first time; later sightings only count. Values of
 * the wrong type are left out: the sync warns of those once per field in every run (see `warnMistyped`),
 * since each such value is lost to its typed column.
 */
export function warnNewDrift(logger: Logger, findings: readonly DriftFinding[]): void {
  for (const { stream, kind, path, example } of findings) {
    if (kind === 'type') continue;
    const what = kind === 'field' ? `a field the spec does not list: ${path}` : `a ${path} value the spec does not list: ${example}`;
    logger.warn({ drift: { stream, kind, path, example } }, `schema drift: ${stream} records carry ${what}`);
  }
}

/** The warning for values of one field that do not parse as its type; the sync gives it once per field and run. */
export function warnMistyped(logger: Logger, stream: StreamName, column: string, mistyped: MistypedColumn): void {
  const { path, type, example } = mistyped;
  logger.warn(
    { drift: { stream, kind: 'type', path, example } },
    `schema drift: ${stream} records carry ${path} values that are not ${TYPE_NAMES[type]} (such as ${JSON.stringify(example)}); column ${column} holds NULL for them and raw keeps the value`,
  );
}

const TYPE_NAMES: Record<ColumnType, string> = {
  decimal: 'a decimal string',
  timestamp: 'an ISO 8601 timestamp',
  integer: 'an integer',
  boolean: 'a boolean',
  text: 'text',
  json: 'JSON',
};
