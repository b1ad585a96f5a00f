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
