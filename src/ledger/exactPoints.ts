/**
 * The ledger adds points as JavaScript numbers (its running balances and day movements) and hands them to every
 * reader as numbers, which are exact up to 2^53 − 1. The sync stores only such integers, but a broken gateway may
 * send values whose sums pass it: the build stops with one sentence rather than write rounded sums.
 */
export class PointsBeyondExactError extends Error {
  override readonly name = 'PointsBeyondExactError';
  constructor(what: string, value: number | bigint) {
    super(
      `points ledger: ${what} reach ${value.toLocaleString('en-US')} points, beyond the 9,007,199,254,740,991 it adds exactly; ` +
        'the build stops rather than write rounded sums (the mirror keeps every transaction, and the tables their last build)',
    );
  }
}
