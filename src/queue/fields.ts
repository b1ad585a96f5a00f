import { isoToMicros } from '../isoTimestamp.js';

/**
 * Parsers for one field of a write, shared by flags, CSV cells and JSON files. Flags and CSV
 * give strings; a JSON file gives typed values, so each parser takes either.
 */
export type FieldValue = string | number | boolean | string[] | number[];

export interface FieldParser {
  /** What a valid value looks like, as a phrase for error sentences. */
  expected: string;
  /** The value to store, or undefined when the raw value is not valid. */
  parse(raw: unknown): FieldValue | undefined;
}

/** Spec part 2: money is a decimal string without formatting. */
const MONEY = /^-?\d+(\.\d+)?$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2}))?$/;

/** Free text (a reason, a review's words): kept as written, spaces and all. */
export function text(): FieldParser {
  return { expected: 'non-empty text', parse: (raw) => (typeof raw === 'string' && raw.trim() !== '' ? raw : undefined) };
}

/**
 * An id the API matches exactly (an order number, a referral id). A space at either end, as a spreadsheet's
 * padded cell brings, would make it another id, so the value is refused rather than sent: trimming it here
 * would also change the key derived from a row already queued, and send that row again on a second import.
 */
export function identifier(): FieldParser {
  return { expected: 'non-empty text without spaces at either end', parse: (raw) => (typeof raw === 'string' && raw !== '' && raw.trim() === raw ? raw : undefined) };
}

/** An identifier that becomes one segment of a URL path, where `.` and `..` would mean "here" and "the level above". */
export function pathSegment(): FieldParser {
  return {
    expected: 'non-empty text without spaces at either end, other than . or ..',
    parse: (raw) => (typeof raw === 'string' && raw !== '' && raw.trim() === raw && raw !== '.' && raw !== '..' ? raw : undefined),
  };
}

export function integer(options: { min?: number; max?: number; nonZero?: boolean } = {}): FieldParser {
  const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER, nonZero = false } = options;
  const range = min === Number.MIN_SAFE_INTEGER ? '' : max === Number.MAX_SAFE_INTEGER ? ` >= ${min}` : ` from ${min} to ${max}`;
  return {
    expected: `a${nonZero ? ' non-zero' : ''} whole number${range}`,
    parse(raw) {
      const value = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
      return Number.isSafeInteger(value) && value >= min && value <= max && !(nonZero && value === 0) ? value : undefined;
    },
  };
}

export function money(): FieldParser {
  return { expected: 'a decimal string such as 12.50', parse: (raw) => (typeof raw === 'string' && MONEY.test(raw) ? raw : undefined) };
}

export function email(): FieldParser {
  return { expected: 'an email address such as ana@example.com', parse: (raw) => (typeof raw === 'string' && EMAIL.test(raw) ? raw : undefined) };
}

export function isoTimestamp(): FieldParser {
  return {
    expected: 'an ISO 8601 date or timestamp such as 2026-03-01T12:00:00Z',
    // Date.parse rolls an impossible date over (31 February is 3 March): the calendar check is the mirror's own.
    parse: (raw) => (typeof raw === 'string' && ISO_8601.test(raw) && isoToMicros(raw) !== null ? raw : undefined),
  };
}

export function oneOf(values: readonly string[]): FieldParser {
  return { expected: `one of ${values.join(', ')}`, parse: (raw) => (typeof raw === 'string' && values.includes(raw) ? raw : undefined) };
}

export function boolean(): FieldParser {
  const values = new Map<unknown, boolean>([
    [true, true],
    ['true', true],
    ['1', true],
    [false, false],
    ['false', false],
    ['0', false],
  ]);
  return { expected: 'true or false', parse: (raw) => values.get(raw) };
}

/** A JSON array, or comma-separated text from a flag or a CSV cell. */
export function textList(): FieldParser {
  return {
    expected: 'a comma-separated list of non-empty codes',
    parse(raw) {
      const items: unknown = typeof raw === 'string' ? raw.split(',').map((item) => item.trim()) : raw;
      if (!Array.isArray(items) || items.length === 0) return undefined;
      return items.every((item): item is string => typeof item === 'string' && item !== '') ? items : undefined;
    },
  };
}

export function integerList(): FieldParser {
  const one = integer({ min: 1 });
  return {
    expected: 'a comma-separated list of whole numbers >= 1',
    parse(raw) {
      const items: unknown = typeof raw === 'string' ? raw.split(',').map((item) => item.trim()) : raw;
      if (!Array.isArray(items) || items.length === 0) return undefined;
      const values = items.map((item) => one.parse(item));
      return values.every((value): value is number => typeof value === 'number') ? values : undefined;
    },
  };
}
