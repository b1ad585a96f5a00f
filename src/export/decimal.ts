/**
 * Money in Parquet: DECIMAL(18, 2), stored as INT64 cents. A column is written that way only when
 * every value of the snapshot fits (at most 16 integer digits and 2 fraction digits, plain notation);
 * otherwise the whole column is written as the exact decimal strings (UTF8), and the manifest says so.
 */
export const MONEY_PRECISION = 18;
export const MONEY_SCALE = 2;

const FITS = /^-?\d{1,16}(?:\.\d{1,2})?$/;

export function fitsMoneyDecimal(text: string): boolean {
  return FITS.test(text);
}

/** The unscaled value (cents) of a decimal string that `fitsMoneyDecimal` accepted. */
export function toUnscaled(text: string): bigint {
  const negative = text.startsWith('-');
  const unsigned = negative ? text.slice(1) : text;
  const dot = unsigned.indexOf('.');
  const whole = dot === -1 ? unsigned : unsigned.slice(0, dot);
  const fraction = dot === -1 ? '' : unsigned.slice(dot + 1);
  const cents = BigInt(whole + fraction.padEnd(MONEY_SCALE, '0'));
  return negative ? -cents : cents;
}

/** The rule above in one sentence, for manifests and the README. */
export const MONEY_RULE =
  'Money columns are DECIMAL(18,2) (INT64) in Parquet when every value of the file fits (plain notation, at most 16 integer and 2 fraction digits); otherwise that column is a UTF8 string of the exact decimal text. CSV always holds the exact text.';
