import type { ExportColumn } from './schema.js';
import type { FileSink } from './fileSink.js';
import type { Cell, Row } from './snapshot.js';

export interface CsvOptions {
  /** Prefix text cells that a spreadsheet would run as a formula with `'`. */
  formulaGuard: boolean;
}

/** Characters that make a spreadsheet treat a cell as a formula (OWASP CSV injection list). */
const FORMULA_START = /^[=+\-@\t\r]/;
/** RFC 4180 needs quotes around `,` `"` CR LF; leading or trailing spaces are quoted too, since many readers trim them. */
const NEEDS_QUOTES = /[",\r\n]/;
const SPACE = 32;
/** Encoded rows collect in a buffer of this size before each write to the file. */
const BUFFER_BYTES = 1024 * 1024;

type CellFormatter = (value: Cell) => string;

/**
 * The SQL that reads a column for CSV. JSON cells (`raw` above all, the bulk of every row) get their
 * quotes doubled by SQLite's replace(), which measured about twice as fast as doing it in JS, and
 * are then always quoted (RFC 4180 allows quoting any field).
 */
export function csvSelect(column: ExportColumn): string {
  return column.type === 'json' ? `replace("${column.name}", '"', '""')` : `"${column.name}"`;
}

/**
 * RFC 4180 text: UTF-8, a header row, `\n` line ends. NULL is an empty field and an empty string
 * is `""`, so the two stay apart; booleans are true/false; json cells are their JSON text.
 */
function csvFormatters(columns: readonly ExportColumn[], options: CsvOptions): CellFormatter[] {
  return columns.map((column) => {
    switch (column.type) {
      case 'integer':
        return (value) => (value === null ? '' : String(value));
      case 'boolean':
        return (value) => (value === null ? '' : value === 0 || value === '0' ? 'false' : 'true');
      case 'text':
        return options.formulaGuard ? (value) => (value === null ? '' : quote(guard(String(value)))) : (value) => (value === null ? '' : quote(String(value)));
      case 'json':
        return (value) => (value === null ? '' : `"${String(value)}"`);
      // Numbers and timestamps are never guarded: a negative amount must stay a number.
      case 'decimal':
      case 'timestamp':
        return (value) => (value === null ? '' : quote(String(value)));
    }
  });
}

function quote(text: string): string {
  if (text === '') return '""';
  if (NEEDS_QUOTES.test(text) || text.charCodeAt(0) === SPACE || text.charCodeAt(text.length - 1) === SPACE) return `"${text.replaceAll('"', '""')}"`;
  return text;
}

function guard(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

function csvHeader(columns: readonly ExportColumn[]): string {
  return `${columns.map((column) => quote(column.name)).join(',')}\n`;
}

/** Streams rows (read with `csvSelect`) into the sink as CSV; returns how many data rows were written. */
export async function writeCsv(rows: Iterable<Row>, columns: readonly ExportColumn[], sink: FileSink, options: CsvOptions, signal?: AbortSignal): Promise<number> {
  const format = csvFormatters(columns, options);
  const width = format.length;
  let buffer = Buffer.allocUnsafe(BUFFER_BYTES);
  let used = buffer.write(csvHeader(columns));
  let count = 0;
  for (const row of rows) {
    let line = format[0](row[0]);
    for (let i = 1; i < width; i += 1) line += `,${format[i](row[i])}`;
    line += '\n';
    // A UTF-16 code unit never takes more than 3 UTF-8 bytes.
    if (used + line.length * 3 > buffer.length) {
      signal?.throwIfAborted();
      await sink.write(buffer.subarray(0, used));
      used = 0;
      if (line.length * 3 > buffer.length) buffer = Buffer.allocUnsafe(line.length * 3);
    }
    used += buffer.write(line, used);
    count += 1;
  }
  if (used > 0) await sink.write(buffer.subarray(0, used));
  return count;
}
