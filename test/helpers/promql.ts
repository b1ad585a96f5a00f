import { createMetrics } from '../../src/metrics/registry.js';

const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset']);

/**
 * The metric names a PromQL expression reads: identifiers left once strings, label matchers, ranges,
 * groupings, function calls, keywords and numbers are taken out. Enough for the expressions of the
 * deploy kit, which a test keeps in step with the code.
 */
export function metricNamesIn(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const match of bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*(\s*\()?/g)) {
    const [token, call] = [match[0].replace(/\s*\($/, ''), match[1]];
    if (call !== undefined || KEYWORDS.has(token)) continue;
    names.add(token);
  }
  return [...names];
}

/** Every series name the code's registry can expose: each family, and a histogram's _bucket, _sum and _count. */
export async function exportedSeriesNames(): Promise<Set<string>> {
  const families = await createMetrics().registry.getMetricsAsJSON();
  const names = new Set<string>();
  for (const family of families) {
    names.add(family.name);
    if (String(family.type) === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${family.name}${suffix}`);
  }
  return names;
}
