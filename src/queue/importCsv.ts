import { basename } from 'node:path';
import { CsvError, parse } from 'csv-parse/sync';
import type { Db } from '../db/open.js';
import { enqueueJob, KeyConflictError, type NewJob } from './enqueueJob.js';
import { canonicalJson, deriveKey } from './idempotencyKey.js';
import { KINDS, validatePayload } from './kinds.js';
import type { JobKind } from './types.js';

/** The optional column that names a row's idempotency key; without it the key is derived. */
const KEY_COLUMN = 'idempotency_key';

export interface RowProblem {
  /** Physical line in the file where the row starts; the header is line 1. */
  line: number;
  field: string;
  message: string;
}

export type ImportResult =
  | { ok: true; created: number; existing: number; rows: number }
  | { ok: false; problems: RowProblem[] };

/** One row of a queued file: where it stood, its cells as written, and the job that holds its write (new or already queued). */
export interface QueuedRow {
  line: number;
  cells: string[];
  jobId: number;
}

export type RowsImportResult =
  | { ok: true; columns: string[]; rows: QueuedRow[]; created: number }
  | { ok: false; problems: RowProblem[] };

/** The header a file of this kind may have: its fields in snake_case, plus `idempotency_key`. */
export function csvColumns(kind: JobKind): { required: string[]; optional: string[] } {
  const fields = KINDS[kind].fields;
  return {
    required: fields.filter((f) => f.required).map((f) => f.name),
    optional: [...fields.filter((f) => !f.required).map((f) => f.name), KEY_COLUMN],
  };
}

interface ParsedRow {
  line: number;
  cells: string[];
}

/**
 * Queues every row of a CSV file, or none: all rows are validated first, and a file with any bad
 * row queues nothing and returns every problem. A good file is queued in one transaction. Rows
 * without a key get one derived from their content (and the occurrence of identical rows), so
 * importing the same file again queues nothing new.
 */
export function importCsv(db: Db, options: { kind: JobKind; file: string; text: string; now: Date }): ImportResult {
  const result = importCsvRows(db, options);
  if (!result.ok) return result;
  return { ok: true, created: result.created, existing: result.rows.length - result.created, rows: result.rows.length };
}

/**
 * As importCsv, and says which job holds each row, in the file's order (the write inbox answers per row).
 * Inside a caller's transaction its own becomes a savepoint, so the caller can commit a record of the file with it.
 */
export function importCsvRows(db: Db, options: { kind: JobKind; file: string; text: string; now: Date }): RowsImportResult {
  const { kind, file } = options;
  let rows: ParsedRow[];
  try {
    rows = parseRows(options.text);
  } catch (error) {
    if (error instanceof CsvError) return { ok: false, problems: [csvProblem(error, options.text)] };
    throw error;
  }
  const header = rows.shift();
  if (header === undefined) return { ok: false, problems: [{ line: 1, field: 'header', message: 'the file is empty; expected a header row' }] };
  const headerProblem = checkHeader(kind, header.cells.map((cell) => cell.trim()));
  if (headerProblem) return { ok: false, problems: [{ line: header.line, field: 'header', message: headerProblem }] };
  const columns = header.cells.map((cell) => cell.trim());

  const problems: RowProblem[] = [];
  const jobs: Array<{ line: number; cells: string[]; job: NewJob }> = [];
  const occurrences = new Map<string, number>();
  const explicitKeys = new Map<string, number>();
  for (const row of rows) {
    if (row.cells.length !== columns.length) {
      problems.push({ line: row.line, field: 'row', message: `has ${row.cells.length} fields; the header has ${columns.length}` });
      continue;
    }
    const raw: Record<string, string> = Object.fromEntries(columns.map((column, i) => [column, row.cells[i]]));
    const key = raw[KEY_COLUMN]?.trim() ?? '';
    delete raw[KEY_COLUMN];
    const validation = validatePayload(kind, raw);
    if (!validation.ok) {
      for (const p of validation.problems) {
        const message = p.value === undefined ? `missing; expected ${p.expected}` : `${JSON.stringify(p.value)} is not valid; expected ${p.expected}`;
        problems.push({ line: row.line, field: p.field, message });
      }
      continue;
    }
    let idempotencyKey: string;
    if (key !== '') {
      const earlier = explicitKeys.get(key);
      if (earlier !== undefined) {
        problems.push({ line: row.line, field: KEY_COLUMN, message: `"${key}" is also used on line ${earlier}; expected a key unique in the file` });
        continue;
      }
      explicitKeys.set(key, row.line);
      idempotencyKey = key;
    } else {
      const content = canonicalJson(validation.payload);
      const occurrence = occurrences.get(content) ?? 0;
      occurrences.set(content, occurrence + 1);
      idempotencyKey = deriveKey(kind, validation.payload, occurrence);
    }
    jobs.push({ line: row.line, cells: row.cells, job: { kind, payload: validation.payload, idempotencyKey, source: `${basename(file)}:${row.line}` } });
  }
  if (problems.length > 0) return { ok: false, problems };

  try {
    return db
      .transaction(() => {
        let created = 0;
        const queued: QueuedRow[] = [];
        for (const { line, cells, job } of jobs) {
          const result = enqueueJob(db, job, options.now);
          if (result.created) created++;
          queued.push({ line, cells, jobId: result.job.id });
        }
        return { ok: true as const, columns, rows: queued, created };
      })
      .immediate();
  } catch (error) {
    if (!(error instanceof KeyConflictError)) throw error;
    const line = jobs.find(({ job }) => job.idempotencyKey === error.key)?.line ?? 1;
    return { ok: false, problems: [{ line, field: KEY_COLUMN, message: error.message }] };
  }
}

/** Rows with the physical line each starts on (quoted cells may span lines; blank lines are skipped). */
function parseRows(text: string): ParsedRow[] {
  const records = parse(text, { info: true, raw: true, relax_column_count: true, skip_empty_lines: true, bom: true }) as unknown as Array<{
    record: string[];
    raw: string;
    info: { lines: number };
  }>;
  const starts = recordStartLines(text);
  // The two readings agree on the records whenever csv-parse read the file: a quote it would refuse throws first.
  if (starts.length === records.length) return records.map(({ record }, i) => ({ line: starts[i], cells: record }));
  return records.map(({ record, raw, info }) => {
    const body = raw.replace(/^(?:\r?\n)+/, '');
    const breaks = (body.match(/\n/g) ?? []).length - (body.endsWith('\n') ? 1 : 0);
    return { line: info.lines - breaks, cells: record };
  });
}

/**
 * The line each record starts on, read by its quotes alone: csv-parse counts a CRLF inside a quoted cell as two
 * lines, which put every later row's problems, and its jobs' `source`, a line further off. A line break is CRLF,
 * LF or CR; an empty line starts no record.
 */
function recordStartLines(text: string): number[] {
  const starts: number[] = [];
  let line = 1;
  let quoted = false;
  let atLineStart = true;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === CR || char === LF) {
      if (char === CR && text.charCodeAt(i + 1) === LF) i++;
      line++;
      if (!quoted) atLineStart = true;
      continue;
    }
    if (atLineStart) {
      starts.push(line);
      atLineStart = false;
    }
    if (char === QUOTE) {
      // Inside quotes, "" is one quote; the other closes them.
      if (quoted && text.charCodeAt(i + 1) === QUOTE) i++;
      else quoted = !quoted;
    }
  }
  return starts;
}

const CR = 13;
const LF = 10;
const QUOTE = 34;

function checkHeader(kind: JobKind, header: string[]): string | undefined {
  const { required, optional } = csvColumns(kind);
  const allowed = new Set([...required, ...optional]);
  const unknown = header.filter((column) => !allowed.has(column));
  const missing = required.filter((column) => !header.includes(column));
  const duplicated = header.filter((column, i) => header.indexOf(column) !== i);
  const parts: string[] = [];
  if (unknown.length > 0) parts.push(`unknown column${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`);
  if (missing.length > 0) parts.push(`missing column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`);
  if (duplicated.length > 0) parts.push(`repeated column${duplicated.length > 1 ? 's' : ''} ${duplicated.join(', ')}`);
  if (parts.length === 0) return undefined;
  return `${parts.join('; ')}; ${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind} file has columns ${required.join(',')} and optionally ${optional.join(',')}`;
}

function csvProblem(error: CsvError, text: string): RowProblem {
  // csv-parse names the line where the file ended, not the one where the quote opened.
  const opened = error.code === 'CSV_QUOTE_NOT_CLOSED' ? unclosedQuoteLine(text) : null;
  if (opened !== null) {
    return {
      line: opened,
      field: 'file',
      message: 'a quoted cell opens on this line and is never closed, so nothing after it could be read; expected a closing " (a quote inside a quoted cell is written "")',
    };
  }
  const lines = (error as CsvError & { lines?: unknown }).lines;
  return { line: typeof lines === 'number' ? lines : 1, field: 'file', message: error.message };
}

/**
 * The line on which the quoted cell left open at the end of `text` begins, or null when every quote
 * closes. A quote opens a cell only at the cell's start (csv-parse refuses one anywhere else), and `""`
 * inside a quoted cell is a quote character.
 */
function unclosedQuoteLine(text: string): number | null {
  let line = 1;
  let openedOn: number | null = null;
  let atCellStart = true;
  for (let i = text.charCodeAt(0) === BYTE_ORDER_MARK ? 1 : 0; i < text.length; i += 1) {
    const char = text[i];
    if (char === '\n') line += 1;
    if (openedOn !== null) {
      if (char !== '"') continue;
      if (text[i + 1] === '"') i += 1;
      else openedOn = null;
      atCellStart = false;
    } else if (char === '"' && atCellStart) {
      openedOn = line;
    } else {
      atCellStart = char === ',' || char === '\n' || char === '\r';
    }
  }
  return openedOn;
}

const BYTE_ORDER_MARK = 0xfeff;
