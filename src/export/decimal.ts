/**
 * Money in Parquet: DECIMAL(18, 2), stored as INT64 cents. A column is written that way only when
 * every value of the snapshot fits (at most 16 integer digits and 2 fraction digits, plain notation);
 * otherwise the whole column is written as the exact decimal strings (UTF8), and the manifest says so.
 */
export const MONEY_PRECISION = 18;
export const MONEY_SCALE = 2;

/**
 * The most fraction digits a model's money column may take as a DECIMAL: a model computes its amounts
 * (liability_end is approved points × ledger.pointValue, and a point worth half a cent gives three places), so
 * their scale is not the API's. Nine is the most BigQuery's NUMERIC holds; more stays text.
 */
export const MODEL_MONEY_MAX_SCALE = 9;

const PLAIN = /^-?(\d+)(?:\.(\d+))?$/;

export function fitsMoneyDecimal(text: string, scale = MONEY_SCALE): boolean {
  const match = PLAIN.exec(text);
  return match !== null && match[1].length <= MONEY_PRECISION - scale && (match[2] ?? '').length <= scale;
}

/**
 * The scale of DECIMAL(18, scale) that holds every one of `values` exactly: MONEY_SCALE, or more where a value
 * has more fraction digits, up to `maxScale`; null when none does (a value too long, or not plain notation).
 */
export function moneyScale(values: Iterable<unknown>, maxScale: number): number | null {
  let whole = 0;
  let fraction = 0;
  for (const value of values) {
    const match = PLAIN.exec(String(value));
    if (match === null) return null;
    whole = Math.max(whole, match[1].length);
    fraction = Math.max(fraction, (match[2] ?? '').length);
  }
  const scale = Math.max(MONEY_SCALE, fraction);
  return scale <= maxScale && whole <= MONEY_PRECISION - scale ? scale : null;
}

/** The unscaled value (cents at scale 2) of a decimal string that `fitsMoneyDecimal` accepted at `scale`. */
export function toUnscaled(text: string, scale = MONEY_SCALE): bigint {
  const negative = text.startsWith('-');
  const unsigned = negative ? text.slice(1) : text;
  const dot = unsigned.indexOf('.');
  const whole = dot === -1 ? unsigned : unsigned.slice(0, dot);
  const fraction = dot === -1 ? '' : unsigned.slice(dot + 1);
  const cents = BigInt(whole + fraction.padEnd(scale, '0'));
  return negative ? -cents : cents;
}

/** The rule above in one sentence, for manifests and the README. */
export const MONEY_RULE =
  'Money columns are DECIMAL(18,2) (INT64) in Parquet when every value of the file fits (plain notation, at most 16 integer and 2 fraction digits); otherwise that column is a UTF8 string of the exact decimal text. A model table\'s money column whose values have more fraction digits (at most 9) is DECIMAL(18,S), S the most of them. CSV always holds the exact text.';
