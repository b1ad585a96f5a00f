/** Money is held as integer cents so arithmetic stays exact; the API shows it as a two-decimal string. */
export function formatCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

const DECIMAL = /^(\d{1,13})(?:\.(\d{1,2}))?$/;

/** Cents of a plain decimal string ("12", "12.5", "12.50"), or null when it is not one. */
export function parseCents(text: string): number | null {
  const match = DECIMAL.exec(text);
  if (!match) return null;
  return Number(match[1]) * 100 + Number((match[2] ?? '0').padEnd(2, '0'));
}
