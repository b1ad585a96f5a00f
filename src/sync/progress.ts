import type { StreamName } from '../config.js';

/** Live feedback while a stream syncs. */
export interface Progress {
  /** The stream starts now: its rows/s counts from here. */
  begin(stream: StreamName): void;
  update(stream: StreamName, rows: number, pages: number): void;
  /** Leaves the stream's final line on screen. */
  finish(stream: StreamName, rows: number, pages: number, status: string): void;
}

const REDRAW_EVERY_MS = 100;

/**
 * On a terminal, one line per stream redrawn in place (rows, rows/s, pages); anywhere else
 * nothing, since the logs already carry one record per page.
 */
export function createProgress(out: NodeJS.WritableStream | null | undefined, now: () => number = () => performance.now()): Progress {
  if (!out || (out as { isTTY?: boolean }).isTTY !== true) return { begin() {}, update() {}, finish() {} };
  const started = new Map<StreamName, number>();
  let drawnAt = 0;
  const line = (stream: StreamName, rows: number, pages: number): string => {
    const seconds = Math.max(0.001, (now() - (started.get(stream) ?? now())) / 1000);
    const rate = Math.round(rows / seconds);
    return `${stream.padEnd(13)} ${rows.toLocaleString('en-US').padStart(11)} rows  ${rate.toLocaleString('en-US').padStart(9)} rows/s  ${pages.toLocaleString('en-US').padStart(6)} pages`;
  };
  return {
    begin(stream) {
      started.set(stream, now());
    },
    update(stream, rows, pages) {
      if (now() - drawnAt < REDRAW_EVERY_MS) return;
      drawnAt = now();
      out.write(`\r\x1b[2K${line(stream, rows, pages)}`);
    },
    finish(stream, rows, pages, status) {
      out.write(`\r\x1b[2K${line(stream, rows, pages)}  ${status}\n`);
      drawnAt = 0;
    },
  };
}
