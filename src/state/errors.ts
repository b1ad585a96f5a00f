/** A problem with the state in the bucket that the user must see as one sentence; the command exits 1. */
export class StateError extends Error {
  override readonly name: string = 'StateError';
}

/** Another run held the lease and wrote after this one's: this run's work can no longer be saved. */
export class LeaseLostError extends StateError {
  override readonly name = 'LeaseLostError';
}

/** Another run holds the lease; `once` skips, every other command waits, then fails with this. */
export class LeaseHeldError extends StateError {
  override readonly name = 'LeaseHeldError';
  constructor(
    message: string,
    readonly holder: string,
    readonly until: string,
  ) {
    super(message);
  }
}

/** A dump the manifest names is not in the bucket: deleted by hand, or superseded by a newer save meanwhile. */
export class DumpMissingError extends StateError {
  override readonly name = 'DumpMissingError';
}
