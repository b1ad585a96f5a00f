import { Bool, Data, Decimal, Int64, TimestampMicrosecond, Utf8, makeData, type DataType } from 'apache-arrow';
import { fitsMoneyDecimal, MONEY_PRECISION, MONEY_SCALE, toUnscaled } from './decimal.js';
import type { ExportColumn } from './schema.js';
import type { Cell } from './snapshot.js';
import { isoToMicros } from './timestamp.js';

/** How one export column is stored in Parquet; the names are what the manifest reports. */
export interface ParquetColumn {
  name: string;
  type: ExportColumn['type'];
  arrow: DataType;
  storage: 'int64' | 'timestamp' | 'bool' | 'decimal' | 'utf8';
  physical: 'INT64' | 'BOOLEAN' | 'BYTE_ARRAY';
  logical: string | null;
}

/**
 * Maps the mirror's logical types onto Parquet. `moneyFits` tells whether every decimal value of a
 * column fits DECIMAL(18,2); a column that does not is written as its exact strings instead.
 */
export function parquetColumns(columns: readonly ExportColumn[], moneyFits: (column: string) => boolean): ParquetColumn[] {
  return columns.map(({ name, type }) => {
    switch (type) {
      case 'integer':
        return { name, type, arrow: new Int64(), storage: 'int64', physical: 'INT64', logical: null };
      case 'boolean':
        return { name, type, arrow: new Bool(), storage: 'bool', physical: 'BOOLEAN', logical: null };
      case 'timestamp':
        return { name, type, arrow: new TimestampMicrosecond('UTC'), storage: 'timestamp', physical: 'INT64', logical: 'TIMESTAMP(MICROS,isAdjustedToUTC=true)' };
      case 'decimal':
        return moneyFits(name)
          ? { name, type, arrow: new Decimal(MONEY_SCALE, MONEY_PRECISION, 128), storage: 'decimal', physical: 'INT64', logical: `DECIMAL(${MONEY_PRECISION},${MONEY_SCALE})` }
          : { name, type, arrow: new Utf8(), storage: 'utf8', physical: 'BYTE_ARRAY', logical: 'STRING' };
      case 'text':
      case 'json':
        return { name, type, arrow: new Utf8(), storage: 'utf8', physical: 'BYTE_ARRAY', logical: 'STRING' };
    }
  });
}

/** Collects one column of one record batch in raw Arrow buffers, avoiding per-value builder overhead. */
export interface ColumnBuffer {
  append(value: Cell): void;
  /** The collected values as Arrow data; the buffer starts over empty. */
  finish(): Data;
  /** Values that were present but not usable for the type (e.g. unparseable timestamps), written as null. */
  readonly invalid: number;
}

export function columnBuffer(column: ParquetColumn, capacity: number): ColumnBuffer {
  switch (column.storage) {
    case 'int64':
      return new Int64Buffer(column.arrow, capacity);
    case 'timestamp':
      return new TimestampBuffer(column.arrow, capacity);
    case 'bool':
      return new BoolBuffer(column.arrow, capacity);
    case 'decimal':
      return new DecimalBuffer(column.arrow, capacity);
    case 'utf8':
      return new Utf8Buffer(column.arrow, capacity);
  }
}

const TWO_32 = 4_294_967_296;

class Validity {
  bits: Uint8Array;
  nulls = 0;
  length = 0;

  constructor(private readonly capacity: number) {
    this.bits = new Uint8Array(Math.ceil(capacity / 8));
  }

  /** Returns the slot of the next value. */
  next(valid: boolean): number {
    const index = this.length;
    this.length += 1;
    if (valid) this.bits[index >> 3] |= 1 << (index & 7);
    else this.nulls += 1;
    return index;
  }

  take(): { length: number; nullCount: number; nullBitmap: Uint8Array } {
    const taken = { length: this.length, nullCount: this.nulls, nullBitmap: this.bits };
    this.bits = new Uint8Array(Math.ceil(this.capacity / 8));
    this.nulls = 0;
    this.length = 0;
    return taken;
  }
}

/** 64-bit integers written as two 32-bit halves: exact for every safe integer, and far cheaper than BigInt. */
class Int64Buffer implements ColumnBuffer {
  protected words: Int32Array;
  protected readonly validity: Validity;
  invalid = 0;

  constructor(
    protected readonly type: DataType,
    protected readonly capacity: number,
  ) {
    this.words = new Int32Array(capacity * 2);
    this.validity = new Validity(capacity);
  }

  append(value: Cell): void {
    this.put(typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value);
  }

  protected put(value: Cell): void {
    if (typeof value === 'number' && Number.isSafeInteger(value)) {
      const slot = this.validity.next(true) * 2;
      this.words[slot] = value % TWO_32 | 0;
      this.words[slot + 1] = Math.floor(value / TWO_32) | 0;
    } else if (typeof value === 'bigint') {
      const slot = this.validity.next(true) * 2;
      this.words[slot] = Number(BigInt.asIntN(32, value));
      this.words[slot + 1] = Number(BigInt.asIntN(32, value >> 32n));
    } else {
      if (value !== null) this.invalid += 1;
      this.validity.next(false);
    }
  }

  finish(): Data {
    const data = new BigInt64Array(this.words.buffer, 0, this.validity.length);
    this.words = new Int32Array(this.capacity * 2);
    return makeData({ type: this.type as Int64, data, ...this.validity.take() });
  }
}

class TimestampBuffer extends Int64Buffer {
  // Rows of one sync share `_synced_at`, and page neighbours often share `created_at`: parse each text once.
  private lastText = '';
  private lastMicros: number | null = null;

  override append(value: Cell): void {
    if (typeof value !== 'string') {
      this.put(value === null ? null : Number.NaN);
      return;
    }
    if (value !== this.lastText) {
      this.lastText = value;
      this.lastMicros = isoToMicros(value);
    }
    this.put(this.lastMicros ?? Number.NaN);
  }
}

class BoolBuffer implements ColumnBuffer {
  private values: Uint8Array;
  private readonly validity: Validity;
  invalid = 0;

  constructor(
    private readonly type: DataType,
    private readonly capacity: number,
  ) {
    this.values = new Uint8Array(Math.ceil(capacity / 8));
    this.validity = new Validity(capacity);
  }

  append(value: Cell): void {
    if (value === null) {
      this.validity.next(false);
      return;
    }
    const index = this.validity.next(true);
    if (value !== 0 && value !== 0n && value !== '0') this.values[index >> 3] |= 1 << (index & 7);
  }

  finish(): Data {
    const data = this.values;
    this.values = new Uint8Array(Math.ceil(this.capacity / 8));
    return makeData({ type: this.type as Bool, data, ...this.validity.take() });
  }
}

/** Decimal128: four little-endian 32-bit words per value, the unscaled integer in two's complement. */
class DecimalBuffer implements ColumnBuffer {
  private words: Uint32Array;
  private readonly validity: Validity;
  invalid = 0;

  constructor(
    private readonly type: DataType,
    private readonly capacity: number,
  ) {
    this.words = new Uint32Array(capacity * 4);
    this.validity = new Validity(capacity);
  }

  append(value: Cell): void {
    const text = typeof value === 'number' ? String(value) : value;
    if (typeof text !== 'string' || !fitsMoneyDecimal(text)) {
      if (value !== null) this.invalid += 1;
      this.validity.next(false);
      return;
    }
    const unscaled = BigInt.asUintN(128, toUnscaled(text));
    const slot = this.validity.next(true) * 4;
    this.words[slot] = Number(unscaled & 0xffff_ffffn);
    this.words[slot + 1] = Number((unscaled >> 32n) & 0xffff_ffffn);
    this.words[slot + 2] = Number((unscaled >> 64n) & 0xffff_ffffn);
    this.words[slot + 3] = Number(unscaled >> 96n);
  }

  finish(): Data {
    const data = this.words.subarray(0, this.validity.length * 4);
    this.words = new Uint32Array(this.capacity * 4);
    return makeData({ type: this.type as Decimal, data, ...this.validity.take() });
  }
}

class Utf8Buffer implements ColumnBuffer {
  private texts: string[] = [];
  private readonly validity: Validity;
  readonly invalid = 0;

  constructor(
    private readonly type: DataType,
    capacity: number,
  ) {
    this.validity = new Validity(capacity);
  }

  append(value: Cell): void {
    this.validity.next(value !== null);
    this.texts.push(value === null ? '' : String(value));
  }

  finish(): Data {
    const texts = this.texts;
    const valueOffsets = new Int32Array(texts.length + 1);
    let total = 0;
    for (let i = 0; i < texts.length; i += 1) {
      valueOffsets[i] = total;
      total += Buffer.byteLength(texts[i], 'utf8');
    }
    valueOffsets[texts.length] = total;
    const data = Buffer.allocUnsafe(total);
    for (let i = 0; i < texts.length; i += 1) data.write(texts[i], valueOffsets[i], 'utf8');
    this.texts = [];
    return makeData({ type: this.type as Utf8, data, valueOffsets, ...this.validity.take() });
  }
}
