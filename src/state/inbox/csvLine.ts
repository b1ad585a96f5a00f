/** One RFC 4180 line: a cell holding a comma, a quote or a line break is quoted, its quotes doubled. */
export function csvLine(cells: readonly string[]): string {
  return `${cells.map((cell) => (/[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell)).join(',')}\n`;
}
