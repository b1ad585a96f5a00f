import type { Logger } from '../log.js';

export interface Shutdown {
  /** Aborted on the first SIGTERM/SIGINT: stop taking new work, finish what is in flight. */
  readonly signal: AbortSignal;
  /** Removes the signal handlers (for one-shot commands that finished on their own). */
  dispose(): void;
}

/**
 * Graceful stop in one place: the first signal aborts `signal` and starts a deadline; when the
 * deadline passes, or on a second signal, the process exits at once. SQLite's WAL keeps the mirror
 * consistent even then: an interrupted transaction simply never happened.
 */
export function installShutdown(logger: Logger, deadlineMs: number): Shutdown {
  const controller = new AbortController();
  let deadline: NodeJS.Timeout | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(130);
    }
    logger.info({ signal, deadlineMs }, 'stopping: finishing the work in flight');
    controller.abort(new Error(`received ${signal}`));
    deadline = setTimeout(() => {
      logger.error({ deadlineMs }, 'work in flight did not finish before the shutdown deadline; exiting');
      process.exit(1);
    }, deadlineMs);
    deadline.unref();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return {
    signal: controller.signal,
    dispose() {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      if (deadline) clearTimeout(deadline);
    },
  };
}
