/** A mistake in the command line; the CLI prints the message and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Exit codes, a contract with schedulers (DESIGN.md). */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
