import { Bool, DateDay, Decimal, Float64, Int64, TimestampMicrosecond, Uint8, Utf8, makeData, type Data, type DataType } from 'apache-arrow';
import { fitsMoneyDecimal, MONEY_PRECISION, toUnscaled } from './decimal.js';
import type { ExportColumn } from './schema.js';
import type { ColumnPiece, JsonCell } from './columnBatches.js';
import { isoToMicros } from '../isoTimestamp.js';

/** How one export column is stored in Parquet; the names are what the manifest reports. */
export interface ParquetColumn {
  name: string;
  type: ExportColumn['type'];
  arrow: DataType;
  storage: 'int64' | 'timestamp' | 'bool' | 'decimal' | 'utf8' | 'date' | 'float64';
  physical: 'INT64' | 'INT32' | 'DOUBLE' | 'BOOLEAN' | 'BYTE_ARRAY';
  logical: string | null;
}

/**
 * Maps the mirror's logical types onto Parquet. `moneyScale` gives the scale S of DECIMAL(18,S) that holds
 * every decimal value of a column (decimal.ts); a column without one is written as its exact strings instead.
 */
export function parquetColumns(columns: readonly ExportColumn[], moneyScale: (column: string) => number | null): ParquetColumn[] {
  return columns.map(({ name, type }) => {
    switch (type) {
      case 'integer':
        return { name, type, arrow: new Int64(), storage: 'int64', physical: 'INT64', logical: null };
      case 'boolean':
        return { name, type, arrow: new Bool(), storage: 'bool', physical: 'BOOLEAN', logical: null };
      case 'timestamp':
        return { name, type, arrow: new TimestampMicrosecond('UTC'), storage: 'timestamp', physical: 'INT64', logical: 'TIMESTAMP(MICROS,isAdjustedToUTC=true)' };
      case 'decimal': {
        const scale = moneyScale(name);
        return scale !== null
          ? { name, type, arrow: new Decimal(scale, MONEY_PRECISION, 128), storage: 'decimal', physical: 'INT64', logical: `DECIMAL(${MONEY_PRECISION},${scale})` }
          : { name, type, arrow: new Utf8(), storage: 'utf8', physical: 'BYTE_ARRAY', logical: 'STRING' };
      }
      case 'date':
        return { name, type, arrow: new DateDay(), storage: 'date', physical: 'INT32', logical: 'DATE' };
      case 'real':
        return { name, type, arrow: new Float64(), storage: 'float64', physical: 'DOUBLE', logical: null };
      case 'text':
      case 'json':
        return { name, type, arrow: new Utf8(), storage: 'utf8', physical: 'BYTE_ARRAY', logical: 'STRING' };
    }
  });
}

export type ColumnStorage = ParquetColumn['storage'];

export interface BuiltColumn {
  data: Data;
  /** Values that were present but not usable for the type (e.g. unparseable timestamps), written as null. */
  invalid: number;
  /** The batch row of the first of them; null when there is none. */
  firstInvalid: number | null;
}

/** How the batch reader should fetch a column: strings as raw bytes, everything else as values. */
export function pieceKind(storage: ColumnStorage): ColumnPiece['kind'] {
  return storage === 'utf8' ? 'text' : 'values';
}

/** One column of a record batch as Arrow data, built straight into Arrow's buffers without per-value builders. */
export function buildColumn(column: ParquetColumn, piece: ColumnPiece): BuiltColumn {
  if (piece.kind !== pieceKind(column.storage)) throw new Error(`column ${column.name} (${column.storage}) cannot be built from a ${piece.kind} piece`);
  if (piece.kind === 'text') return { data: utf8Data(column.arrow as Utf8, piece.bytes, piece.lengths), invalid: 0, firstInvalid: null };
  switch (column.storage) {
    case 'timestamp':
      return timestampData(column.arrow as TimestampMicrosecond, piece.values, timestampReader());
    case 'bool':
      return boolData(column.arrow as Bool, piece.values);
    case 'decimal':
      return decimalData(column.arrow as Decimal, piece.values);
    case 'date':
      return dateData(column.arrow as DateDay, piece.values);
    case 'float64':
      return float64Data(column.arrow as Float64, piece.values);
    default:
      return int64Data(column.arrow as Int64, piece.values, integerValue);
  }
}

/** Counts the values present but unusable, and remembers where the first was. */
class Invalids {
  count = 0;
  first: number | null = null;

  add(index: number): void {
    this.count += 1;
    this.first ??= index;
  }
}

const TWO_32 = 4_294_967_296;

class Validity {
  readonly bits: Uint8Array;
  nulls = 0;

  constructor(length: number) {
    this.bits = new Uint8Array(Math.ceil(length / 8));
  }

  set(index: number): void {
    this.bits[index >> 3] |= 1 << (index & 7);
  }
}

/** NaN stands for a value that is present but unusable; null for NULL. */
type IntegerReader = (value: JsonCell) => number | null;

export function integerValue(value: JsonCell): number | null {
  if (typeof value === 'string') return /^-?\d+$/.test(value) ? Number(value) : Number.NaN;
  return value;
}

/** A value present but not usable for its column's type: written as null, and counted. */
export const INVALID = Symbol('invalid');

/** Microseconds of a timestamp cell, exact for every year (see isoToMicros); null for NULL. */
export type TimestampReader = (value: JsonCell) => bigint | null | typeof INVALID;

/** Rows of one sync share `_synced_at`, and neighbours often share `created_at`: each text is parsed once per run of equal values. */
export function timestampReader(): TimestampReader {
  let lastText = '';
  let lastMicros: bigint | null = null;
  return (value) => {
    if (typeof value !== 'string') return value === null ? null : INVALID;
    if (value !== lastText) {
      lastText = value;
      lastMicros = isoToMicros(value);
    }
    return lastMicros ?? INVALID;
  };
}

/** 64-bit integers written as two 32-bit halves: exact for every safe integer, and far cheaper than BigInt. */
function int64Data(type: Int64, values: readonly JsonCell[], read: IntegerReader): BuiltColumn {
  const length = values.length;
  const words = new Int32Array(length * 2);
  const validity = new Validity(length);
  const invalid = new Invalids();
  for (let i = 0; i < length; i += 1) {
    const value = read(values[i]);
    if (value !== null && Number.isSafeInteger(value)) {
      words[2 * i] = value % TWO_32 | 0;
      words[2 * i + 1] = Math.floor(value / TWO_32) | 0;
      validity.set(i);
    } else {
      if (value !== null) invalid.add(i);
      validity.nulls += 1;
    }
  }
  return { data: makeData({ type, length, nullCount: validity.nulls, nullBitmap: validity.bits, data: new BigInt64Array(words.buffer) }), invalid: invalid.count, firstInvalid: invalid.first };
}

/** Timestamps as bigint microseconds: years before 1685 and after 2254 lie past what a number holds exactly. */
function timestampData(type: TimestampMicrosecond, values: readonly JsonCell[], read: TimestampReader): BuiltColumn {
  const length = values.length;
  const micros = new BigInt64Array(length);
  const validity = new Validity(length);
  const invalid = new Invalids();
  for (let i = 0; i < length; i += 1) {
    const value = read(values[i]);
    if (typeof value === 'bigint') {
      micros[i] = value;
      validity.set(i);
    } else {
      if (value === INVALID) invalid.add(i);
      validity.nulls += 1;
    }
  }
  return { data: makeData({ type, length, nullCount: validity.nulls, nullBitmap: validity.bits, data: micros }), invalid: invalid.count, firstInvalid: invalid.first };
}

function boolData(type: Bool, values: readonly JsonCell[]): BuiltColumn {
  const length = values.length;
  const bits = new Uint8Array(Math.ceil(length / 8));
  const validity = new Validity(length);
  for (let i = 0; i < length; i += 1) {
    const value = values[i];
    if (value === null) {
      validity.nulls += 1;
      continue;
    }
    validity.set(i);
    if (value !== 0 && value !== '0') bits[i >> 3] |= 1 << (i & 7);
  }
  if (length > 0 && validity.nulls === length) return { data: allNullBoolData(length, validity.bits), invalid: 0, firstInvalid: null };
  return { data: makeData({ type, length, nullCount: validity.nulls, nullBitmap: validity.bits, data: bits }), invalid: 0, firstInvalid: null };
}

/**
 * A boolean column whose every value in the batch is NULL (an optional field no row has). Arrow JS
 * writes such a column with an empty values buffer, which the encoder's Arrow reader (arrow-rs)
 * rejects, so the export failed with "Dyn casting error". Handed over as bytes instead, the IPC
 * message carries a values buffer of `length` zero bytes under the schema's Bool field: a valid
 * Bool layout (a bitmap needs length / 8 bytes), so the Parquet column stays BOOLEAN, all NULL.
 */
function allNullBoolData(length: number, nullBitmap: Uint8Array): Data {
  return makeData({ type: new Uint8(), length, nullCount: length, nullBitmap, data: new Uint8Array(length) });
}

const DAY_MS = 86_400_000;

/** Days since 1970-01-01 of an ISO `YYYY-MM-DD` date; null for anything else (a calendar day that does not exist included). */
export function epochDay(text: string): number | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (match === null) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const ms = Date.UTC(year, month - 1, day);
  const date = new Date(ms);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day ? ms / DAY_MS : null;
}

/** Date32: days since the epoch, as Parquet's DATE stores them. */
function dateData(type: DateDay, values: readonly JsonCell[]): BuiltColumn {
  const length = values.length;
  const days = new Int32Array(length);
  const validity = new Validity(length);
  const invalid = new Invalids();
  for (let i = 0; i < length; i += 1) {
    const value = values[i];
    const day = typeof value === 'string' ? epochDay(value) : null;
    if (day !== null) {
      days[i] = day;
      validity.set(i);
    } else {
      if (value !== null) invalid.add(i);
      validity.nulls += 1;
    }
  }
  return { data: makeData({ type, length, nullCount: validity.nulls, nullBitmap: validity.bits, data: days }), invalid: invalid.count, firstInvalid: invalid.first };
}

function float64Data(type: Float64, values: readonly JsonCell[]): BuiltColumn {
  const length = values.length;
  const numbers = new Float64Array(length);
  const validity = new Validity(length);
  const invalid = new Invalids();
  for (let i = 0; i < length; i += 1) {
    const value = values[i];
    if (typeof value === 'number') {
      numbers[i] = value;
      validity.set(i);
    } else {
      if (value !== null) invalid.add(i);
      validity.nulls += 1;
    }
  }
  return { data: makeData({ type, length, nullCount: validity.nulls, nullBitmap: validity.bits, data: numbers }), invalid: invalid.count, firstInvalid: invalid.first };
}

/** Decimal128: four little-endian 32-bit words per value, the unscaled integer in two's complement. */
function decimalData(type: Decimal, values: readonly JsonCell[]): BuiltColumn {
  const length = values.length;
  const words = new Uint32Array(length * 4);
  const validity = new Validity(length);
  const invalid = new Invalids();
  for (let i = 0; i < length; i += 1) {
    const value = values[i];
    const text = typeof value === 'number' ? String(value) : value;
    if (text === null || !fitsMoneyDecimal(text, type.scale)) {
      if (value !== null) invalid.add(i);
      validity.nulls += 1;
      continue;
    }
    const unscaled = BigInt.asUintN(128, toUnscaled(text, type.scale));
    words[4 * i] = Number(unscaled & 0xffff_ffffn);
    words[4 * i + 1] = Number((unscaled >> 32n) & 0xffff_ffffn);
    words[4 * i + 2] = Number((unscaled >> 64n) & 0xffff_ffffn);
    words[4 * i + 3] = Number(unscaled >> 96n);
    validity.set(i);
  }
  return { data: makeData({ type, length, nullCount: validity.nulls, nullBitmap: validity.bits, data: words }), invalid: invalid.count, firstInvalid: invalid.first };
}

/** Arrow's string layout is the bytes end to end plus offsets: the bytes SQLite gave are used as they are. */
function utf8Data(type: Utf8, bytes: Uint8Array, lengths: ReadonlyArray<number | null>): Data {
  const length = lengths.length;
  const valueOffsets = new Int32Array(length + 1);
  const validity = new Validity(length);
  let offset = 0;
  for (let i = 0; i < length; i += 1) {
    valueOffsets[i] = offset;
    const byteLength = lengths[i];
    if (byteLength === null) {
      validity.nulls += 1;
    } else {
      offset += byteLength;
      validity.set(i);
    }
  }
  valueOffsets[length] = offset;
  return makeData({ type, length, nullCount: validity.nulls, nullBitmap: validity.bits, data: bytes, valueOffsets });
}
