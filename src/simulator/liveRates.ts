import type { Rng } from './random.js';
import { DAY, HOUR } from './time.js';

/**
 * How often a live program changes records after creating them: the rates the READMEs state.
 * Each record's later change is drawn when the record is created, so old records keep changing
 * at a real program's pace and a tick only takes what falls due in its hour.
 */

/** Order points stay pending for the merchant's return window, drawn per order. */
export const PENDING_PERIOD_DAYS = { min: 30, max: 90 } as const;
/** When the window ends, this share of the pending activities is voided (the order came back) instead of approved. */
export const VOIDED_AT_PERIOD_END = 0.05;

/** Share of orders refunded or cancelled at some point in their life. */
export const REFUNDED_SHARE = 0.06;
/** Most refunds come within a month (returns); the rest late, 60 to 120 days on (chargebacks). */
export const EARLY_REFUND_SHARE = 0.8;
export const EARLY_REFUND_DAYS = { min: 1 / 24, max: 30 } as const;
export const LATE_REFUND_DAYS = { min: 60, max: 120 } as const;
/** Of the refunds, this share returns all that was paid (half of those cancel the order); the rest a third. */
export const FULL_REFUND_SHARE = 0.4;

/** Customers (of any age) edited in a day without points moving: a profile edit, an enrolment. */
export const CUSTOMER_EDITS_PER_DAY = 0.005;

export interface RefundPlan {
  /** Milliseconds after the order's creation. */
  delay: number;
  full: boolean;
  cancel: boolean;
}

function daysBetween(rng: Rng, range: { min: number; max: number }): number {
  return Math.round((range.min + rng.next() * (range.max - range.min)) * DAY);
}

/** How long an order's points stay pending. */
export function pendingPeriod(rng: Rng): number {
  return daysBetween(rng, PENDING_PERIOD_DAYS);
}

/** The refund an order will get, or null for the orders that keep all they paid. */
export function refundPlan(rng: Rng): RefundPlan | null {
  if (!rng.chance(REFUNDED_SHARE)) return null;
  const delay = Math.max(HOUR, daysBetween(rng, rng.chance(EARLY_REFUND_SHARE) ? EARLY_REFUND_DAYS : LATE_REFUND_DAYS));
  const full = rng.chance(FULL_REFUND_SHARE);
  return { delay, full, cancel: full && rng.chance(0.5) };
}

/** Customer edits in one tick (an hour): a whole number whose mean is the daily rate's hourly share. */
export function customerEditsThisHour(rng: Rng, customers: number): number {
  const expected = (customers * CUSTOMER_EDITS_PER_DAY * HOUR) / DAY;
  const whole = Math.floor(expected);
  return whole + (rng.chance(expected - whole) ? 1 : 0);
}
