import { toJsonText } from '../jsonText.js';

/** Longest example kept, in characters: enough to recognise a value, too short to carry a record. */
const MAX_EXAMPLE_CHARS = 80;
const EMAIL = /[^\s@"'<>(),;:]+@[^\s@"'<>(),;:]+\.[a-z]{2,}/gi;

/**
 * A value as the example of a drift finding: text as is, anything else as JSON; whatever looks like an
 * email address masked (before truncating, so no half address survives), then cut to a short length.
 */
export function driftExample(value: unknown): string {
  const text = typeof value === 'string' ? value : toJsonText(value);
  const masked = text.replace(EMAIL, (email) => `***@${email.slice(email.lastIndexOf('@') + 1)}`);
  return masked.length <= MAX_EXAMPLE_CHARS ? masked : `${masked.slice(0, MAX_EXAMPLE_CHARS - 1)}…`;
}
