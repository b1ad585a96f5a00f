import type { ApiRecord } from '../../src/db/upsertRecords.js';

/** Text the writers must carry through untouched: separators, quotes, line breaks, non-ASCII, formula starts, edge spaces. */
export const TRICKY_TEXTS = [
  'Smith, Jane',
  'say "hello"',
  'line one\nline two',
  'carriage\r\nreturn',
  'Zoë Ørsted — 東京 🎉',
  '=HYPERLINK("http://evil")',
  '+1 555 0100',
  '-rm -rf',
  '@SUM(A1)',
  '\tTabbed',
  '  padded  ',
  '',
];

/** Customers cloned from a real record with one tricky text in each text field, ids far above the generated ones. */
export function trickyCustomers(template: ApiRecord): ApiRecord[] {
  return TRICKY_TEXTS.map((text, index) => ({
    ...template,
    id: 900_000_000 + index,
    merchant_id: `tricky-${index}`,
    email: text,
    referral_id: text,
    insights_segment: index % 2 === 0 ? null : text,
    properties: { note: text, nested: [text, index] },
  }));
}

/**
 * Customers cloned from a real record whose tier memberships lie at the edges of what a timestamp column
 * holds: one that never expires (`9999-12-31T23:59:59Z`), one carried over from 1650, and one spanning the
 * first and the last microsecond of years 0001 to 9999. Their microseconds are past 2^53.
 */
export const FAR_TIERS = [
  { id: 910_000_000, started_at: '2026-01-05T09:00:00Z', expires_at: '9999-12-31T23:59:59Z' },
  { id: 910_000_001, started_at: '1650-06-15T08:30:00Z', expires_at: '1651-06-15T08:30:00Z' },
  { id: 910_000_002, started_at: '0001-01-01T00:00:00.000001Z', expires_at: '9999-12-31T23:59:59.999999Z' },
] as const;

export function farTierCustomers(template: ApiRecord): ApiRecord[] {
  const membership = template.loyalty_tier_membership as Record<string, unknown>;
  return FAR_TIERS.map(({ id, started_at, expires_at }) => ({
    ...template,
    id,
    merchant_id: `far-tier-${id}`,
    loyalty_tier_membership: { ...membership, started_at, expires_at },
  }));
}
