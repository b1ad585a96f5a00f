import type { Logger } from '../log.js';

/**
 * After the deadline has aborted the work still in flight, how long that work gets to remove what it wrote
 * half-way (an export's temporary files and unfinished uploads) before the process exits however it stands.
 */
const CLEAN_UP_AFTER_DEADLINE_MS = 2_000;

export interface Shutdown {
  /** Aborted on the first SIGTERM/SIGINT: stop taking new work, finish what is in flight. */
  readonly signal: AbortSignal;
  /**
   * Aborted when the deadline passes after that signal (with a ShutdownDeadlineError): work that finishes
   * what it started rather than stop at `signal` (an export) stops here.
   */
  readonly deadline: AbortSignal;
  /** Removes the signal handlers (for one-shot commands that finished on their own). */
  dispose(): void;
}

/** Why work that was let finish after a stop signal was aborted after all. */
export class ShutdownDeadlineError extends Error {
  override readonly name = 'ShutdownDeadlineError';
  constructor(readonly deadlineMs: number) {
    super(`the work in flight did not finish within runtime.shutdownDeadlineSeconds (${deadlineMs / 1000} s) of the stop signal, so it was aborted`);
  }
}

/**
 * Graceful stop in one place: the first signal aborts `signal` and starts a deadline; when the deadline
 * passes, `deadline` aborts the work still in flight, and the process exits soon after if it has not
 * ended by then; a second signal exits at once. SQLite's WAL keeps the mirror consistent even then: an
 * interrupted transaction simply never happened.
 */
export function installShutdown(logger: Logger, deadlineMs: number): Shutdown {
  const controller = new AbortController();
  const deadlineController = new AbortController();
  let deadline: NodeJS.Timeout | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(130);
    }
    logger.info({ signal, deadlineMs }, 'stopping: finishing the work in flight');
    controller.abort(new Error(`received ${signal}`));
    deadline = setTimeout(() => {
      logger.error({ deadlineMs }, 'work in flight did not finish before the shutdown deadline; aborting it');
      deadlineController.abort(new ShutdownDeadlineError(deadlineMs));
      setTimeout(() => {
        logger.error({ deadlineMs }, 'work in flight did not stop after the shutdown deadline; exiting');
        process.exit(1);
      }, CLEAN_UP_AFTER_DEADLINE_MS).unref();
    }, deadlineMs);
    deadline.unref();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return {
    signal: controller.signal,
    deadline: deadlineController.signal,
    dispose() {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      if (deadline) clearTimeout(deadline);
    },
  };
}
