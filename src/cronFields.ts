/**
 * node-cron accepts an expression whose values are out of range (a minute step of 99 validates, and then
 * never fires as written), so the config checks each field's numbers itself.
 */
interface Field {
  name: string;
  min: number;
  max: number;
  /** Names allowed in place of numbers (months, weekdays), lower case. */
  names?: readonly string[];
}

const SECOND: Field = { name: 'second', min: 0, max: 59 };
const FIVE_FIELDS: readonly Field[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec', 'january', 'february', 'march', 'april', 'june', 'july', 'august', 'september', 'october', 'november', 'december'] },
  // 7 is Sunday too.
  { name: 'day-of-week', min: 0, max: 7, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] },
];

/** What is out of range in a cron expression of 5 fields (or 6, seconds first), or null when every value fits. */
export function cronRangeProblem(expression: string): string | null {
  const parts = expression.trim().split(/\s+/);
  const fields = parts.length === 6 ? [SECOND, ...FIVE_FIELDS] : FIVE_FIELDS;
  if (parts.length !== fields.length) return `it has ${parts.length} fields, where 5 (or 6, seconds first) are expected`;
  for (const [i, field] of fields.entries()) {
    for (const item of parts[i].split(',')) {
      const problem = itemProblem(item, field);
      if (problem !== null) return `the ${field.name} field ${problem}`;
    }
  }
  return null;
}

function itemProblem(item: string, field: Field): string | null {
  const [range, step, ...extra] = item.split('/');
  if (extra.length > 0) return `"${item}" has more than one step`;
  const span = field.max - field.min;
  if (step !== undefined && (!/^\d+$/.test(step) || Number(step) < 1 || Number(step) > span)) {
    return `step ${step} is outside 1-${span}`;
  }
  if (range === '*' || range === '?') return null;
  for (const value of range.split('-')) {
    if (field.names?.includes(value.toLowerCase())) continue;
    if (!/^\d+$/.test(value)) return `value "${value}" is not a number`;
    if (Number(value) < field.min || Number(value) > field.max) return `value ${value} is outside ${field.min}-${field.max}`;
  }
  return null;
}
