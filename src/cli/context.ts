import type { Writable } from 'node:stream';
import { createApiClient, type ApiClient } from '../api/client.js';
import type { Config } from '../config.js';
import { openDatabase, openDatabaseForReading, type Db } from '../db/open.js';
import type { Logger } from '../log.js';
import type { LeaseHeldError } from '../state/errors.js';
import type { StateSession } from '../state/session.js';
import type { StateFactsRelay } from './stateFactsRelay.js';
import { UsageError } from './errors.js';

/** What every command receives from the dispatcher: no module-level singletons. */
export interface CommandContext {
  config: Readonly<Config>;
  logger: Logger;
  stdout: Writable;
  stderr: Writable;
  /** With `state.url`: the state in the bucket, under this run's lease (absent for commands that keep none). */
  state?: StateSession;
  /**
   * With `state.url`, for a command that asked to skip (`once`): another run holds the lease. The
   * command must leave the mirror alone; it says so and hands over its metrics (runWithState).
   */
  leaseHeld?: LeaseHeldError;
  /** With `state.url`: the state's facts (restore, saves, a skip), for the command's metrics to `attach` to. */
  stateFacts?: StateFactsRelay;
}

/**
 * The mirror, for a command that changes it (export, queue retry, queue cancel). It must exist: a
 * mistyped LOYALTY_DB fails naming the path instead of creating an empty mirror there.
 */
export function openMirror(ctx: CommandContext): Db {
  return openDatabase(ctx.config.db.path, { mustExist: true });
}

/** The mirror, for a command that adds to it (queue add-…, queue import): created when it does not exist yet. */
export function createMirror(ctx: CommandContext): Db {
  return openDatabase(ctx.config.db.path);
}

/** The mirror, for a command that only reads it (status, queue list): it must exist, and is read-only when this user may not write it. */
export function readMirror(ctx: CommandContext): Db {
  return openDatabaseForReading(ctx.config.db.path);
}

/** A command that calls the API stops before sending anything without a key: every request would only get a 401. */
export function requireApiKey(ctx: CommandContext, command: string): void {
  const key = ctx.config.api.apiKey;
  if (key === '') throw new UsageError(`LOYALTY_API_KEY is not set; export the program API key in that variable and run ${command} again.`);
  // An HTTP header carries no control character (and a key nothing beyond ASCII): every request would fail before it
  // is sent, each reported as a broken connection. The key itself is never shown.
  const unprintable = key.search(/[^\x20-\x7e]/u);
  if (unprintable !== -1) {
    throw new UsageError(
      `LOYALTY_API_KEY holds a character that is not printable ASCII at position ${unprintable + 1} of ${key.length}; expected the API key alone, on one line.`,
    );
  }
}

export function createClient(ctx: CommandContext): ApiClient {
  return createApiClient(ctx.config.api, ctx.logger);
}
