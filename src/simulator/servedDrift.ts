import type { ServedDrift } from './types.js';

const KNOWN = ['unlistedField', 'unlistedEnumValue'] as const;

/** Checks a spec that may come from JSON over the control route: known names, booleans only. */
export function validateServedDrift(spec: Readonly<Record<string, unknown>>): ServedDrift {
  const checked: ServedDrift = {};
  for (const [name, value] of Object.entries(spec)) {
    if (!(KNOWN as readonly string[]).includes(name)) throw new RangeError(`schema-drift.${name} is not a kind of drift; expected one of ${KNOWN.join(', ')}`);
    if (value === undefined) continue;
    if (typeof value !== 'boolean') throw new RangeError(`schema-drift.${name} must be true or false, got ${JSON.stringify(value)}`);
    checked[name as (typeof KNOWN)[number]] = value;
  }
  return checked;
}
