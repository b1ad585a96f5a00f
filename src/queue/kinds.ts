import { boolean, email, identifier, integer, integerList, isoTimestamp, money, oneOf, pathSegment, text, textList, type FieldParser } from './fields.js';
import type { JobKind, JobPayload } from './types.js';

export interface FieldSpec {
  /** The API's field name (snake_case); the flag is its kebab-case form, the CSV column is the name itself. */
  name: string;
  required: boolean;
  parser: FieldParser;
}

export interface KindSpec {
  fields: FieldSpec[];
  /** Jobs with the same key run one at a time, in queue order (DESIGN.md: same customer or same review). */
  orderingKey(payload: JobPayload): string;
  /** A few words naming what the write touches, for messages and `queue list`. */
  target(payload: JobPayload): string;
}

const REVIEW_STATUSES = ['approved', 'flagged', 'pending', 'rejected'] as const;
const PAYMENT_STATUSES = ['not_paid', 'partially_paid', 'paid'] as const;
/** Spec part 4, update-review: images_count and videos_count are 0 to 1000. */
const MAX_MEDIA_COUNT = 1000;

const required = (name: string, parse: FieldParser): FieldSpec => ({ name, required: true, parser: parse });
const optional = (name: string, parse: FieldParser): FieldSpec => ({ name, required: false, parser: parse });

const customerKey = (payload: JobPayload): string => `customer:${String(payload.customer_merchant_id)}`;
const reviewKey = (payload: JobPayload): string => `review:${String(payload.platform)}/${String(payload.merchant_id)}`;

/** Every kind of write as data: its fields (spec part 4), its ordering key and its target. */
export const KINDS: Readonly<Record<JobKind, KindSpec>> = {
  add_points: {
    fields: [required('customer_merchant_id', pathSegment()), required('points', integer({ nonZero: true })), required('reason', text())],
    orderingKey: customerKey,
    target: (p) => `customer ${String(p.customer_merchant_id)}`,
  },
  claim_reward: {
    fields: [
      required('customer_merchant_id', pathSegment()),
      required('reward_id', integer({ min: 1 })),
      optional('multiplier', integer({ min: 1 })),
      optional('variant_id', identifier()),
      optional('ecom_action_id', identifier()),
    ],
    orderingKey: customerKey,
    target: (p) => `customer ${String(p.customer_merchant_id)}`,
  },
  update_review: {
    fields: [
      required('platform', pathSegment()),
      required('merchant_id', pathSegment()),
      required('status', oneOf(REVIEW_STATUSES)),
      optional('full_text', text()),
      optional('rating', integer({ min: 1 })),
      optional('images_count', integer({ min: 0, max: MAX_MEDIA_COUNT })),
      optional('videos_count', integer({ min: 0, max: MAX_MEDIA_COUNT })),
      optional('date', isoTimestamp()),
    ],
    orderingKey: reviewKey,
    target: (p) => `review ${String(p.platform)}/${String(p.merchant_id)}`,
  },
  delete_review: {
    fields: [required('platform', pathSegment()), required('merchant_id', pathSegment())],
    orderingKey: reviewKey,
    target: (p) => `review ${String(p.platform)}/${String(p.merchant_id)}`,
  },
  create_order: {
    fields: [
      required('merchant_id', pathSegment()),
      required('customer_id', identifier()),
      required('customer_email', email()),
      required('total', money()),
      required('total_shipping', money()),
      required('total_paid', money()),
      required('payment_status', oneOf(PAYMENT_STATUSES)),
      optional('merchant_number', identifier()),
      optional('number', identifier()),
      optional('discount_codes', textList()),
      optional('claimed_reward_ids', integerList()),
      optional('date', isoTimestamp()),
      optional('ip_address', identifier()),
      optional('user_agent', text()),
      optional('referral_id', identifier()),
      optional('tracking_id', identifier()),
      optional('guest', boolean()),
    ],
    // An order belongs to a customer: it runs in order with that customer's points and claims.
    orderingKey: (p) => `customer:${String(p.customer_id)}`,
    target: (p) => `order ${String(p.merchant_id)}`,
  },
};

export interface FieldProblem {
  field: string;
  /** Undefined when the field is missing. */
  value: unknown;
  /** What was expected, as a phrase: "a whole number >= 1". */
  expected: string;
}

export type Validation = { ok: true; payload: JobPayload } | { ok: false; problems: FieldProblem[] };

/**
 * Checks raw field values (strings from flags or CSV, typed values from JSON) against the kind's
 * fields. An absent value, or an empty string, counts as not given.
 */
export function validatePayload(kind: JobKind, raw: Record<string, unknown>): Validation {
  const spec = KINDS[kind];
  const problems: FieldProblem[] = [];
  const payload: JobPayload = {};
  const known = new Set(spec.fields.map((field) => field.name));
  for (const name of Object.keys(raw)) {
    if (!known.has(name) && raw[name] !== undefined) {
      problems.push({ field: name, value: raw[name], expected: `no such field for ${kind}; the fields are ${[...known].join(', ')}` });
    }
  }
  for (const field of spec.fields) {
    const value = raw[field.name];
    if (value === undefined || value === '' || value === null) {
      if (field.required) problems.push({ field: field.name, value: undefined, expected: field.parser.expected });
      continue;
    }
    const parsed = field.parser.parse(value);
    if (parsed === undefined) problems.push({ field: field.name, value, expected: field.parser.expected });
    else payload[field.name] = parsed;
  }
  return problems.length === 0 ? { ok: true, payload } : { ok: false, problems };
}

