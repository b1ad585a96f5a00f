/** The three HTTP-date forms a recipient must accept (RFC 9110, 5.6.7): IMF-fixdate, RFC 850, asctime. */
const HTTP_DATES = [
  /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
  /^[A-Z][a-z]+, \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT$/,
  /^[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/,
];

/** Milliseconds since 1970 of an HTTP-date (whole seconds), or undefined when the text is not one. */
export function parseHttpDate(text: string): number | undefined {
  if (!HTTP_DATES.some((form) => form.test(text))) return undefined;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : date;
}
