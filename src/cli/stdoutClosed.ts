import type { Writable } from 'node:stream';
import { EXIT_FAILED } from './errors.js';

/**
 * A reader that stops early (`loyalty-sync balances … | head`) closes the pipe, and the next write to stdout
 * fails with EPIPE, which Node raises as an unhandled 'error' event: a stack trace instead of the quiet end a
 * Unix filter makes. The command ends as it would, saying nothing (the reader chose to stop), and exits 1: its
 * output was not all delivered, as a filter that SIGPIPE stops does not succeed (`set -o pipefail` sees it).
 */
export function watchStdoutClosing(stdout: Writable): { closed: () => boolean } {
  let closed = false;
  stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && !closed) throw error;
    closed = true;
    // The command may have returned already: its exit code was set then.
    if (process.exitCode === undefined || process.exitCode === 0) process.exitCode = EXIT_FAILED;
  });
  return { closed: () => closed };
}
