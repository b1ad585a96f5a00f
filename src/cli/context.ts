import type { Writable } from 'node:stream';
import { createApiClient, type ApiClient } from '../api/client.js';
import type { Config } from '../config.js';
import { openDatabase, type Db } from '../db/open.js';
import type { Logger } from '../log.js';

/** What every command receives from the dispatcher: no module-level singletons. */
export interface CommandContext {
  config: Readonly<Config>;
  logger: Logger;
  stdout: Writable;
  stderr: Writable;
}

export function openMirror(ctx: CommandContext): Db {
  return openDatabase(ctx.config.db.path);
}

export function createClient(ctx: CommandContext): ApiClient {
  return createApiClient(ctx.config.api, ctx.logger);
}
