import { isUtf8 } from 'node:buffer';
import type { RowProblem } from './importCsv.js';

/**
 * A CSV file's bytes as text, or the line of the first bytes that are not UTF-8. Read as UTF-8 regardless, a file
 * saved in a legacy encoding (Excel's plain "CSV" on Windows writes Windows-1252) would have each accented letter
 * replaced by U+FFFD and queue, then send, those words. No UTF-8 character spans a line break, so the first line
 * that is not UTF-8 on its own holds the first bad byte.
 */
export function csvText(bytes: Buffer): { ok: true; text: string } | { ok: false; problem: RowProblem } {
  if (isUtf8(bytes)) return { ok: true, text: bytes.toString('utf8') };
  let start = 0;
  for (let line = 1; ; line++) {
    const end = bytes.indexOf(LF, start);
    const content = bytes.subarray(start, end === -1 ? bytes.length : end);
    if (!isUtf8(content)) {
      return {
        ok: false,
        problem: {
          line,
          field: 'file',
          message: 'the file is not UTF-8 text (it was saved in another encoding, such as Windows-1252); expected it saved as UTF-8 (in Excel: "CSV UTF-8")',
        },
      };
    }
    if (end === -1) break;
    start = end + 1;
  }
  // A file whose lines are each UTF-8 is UTF-8 whole: unreachable, but never a silent import.
  return { ok: false, problem: { line: 1, field: 'file', message: 'the file is not UTF-8 text; expected it saved as UTF-8' } };
}

const LF = 0x0a;
