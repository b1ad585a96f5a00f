import type { ApiClient } from '../api/client.js';
import type { Config } from '../config.js';
import type { ApiRecord } from '../db/upsertRecords.js';
import type { Logger } from '../log.js';
import type { StreamDefinition } from '../streams/index.js';
import type { MirrorRows } from './mirrorRows.js';
import type { Repairer } from './repair.js';
import type { StreamTally } from './streamTally.js';
import type { DifferenceJudge } from './differenceJudge.js';

/** What verifying one stream needs; built by runVerify. */
export interface StreamVerifyContext {
  client: ApiClient;
  config: Readonly<Config>;
  /** Already carries `{ stream }`. */
  logger: Logger;
  stream: StreamDefinition;
  mirror: MirrorRows;
  judge: DifferenceJudge;
  tally: StreamTally;
  /** Null unless --repair. */
  repairer: Repairer | null;
  /** Records the schema drift of records read from the API, as the sync does (one warning when first seen). */
  noteDrift: (records: readonly ApiRecord[]) => void;
  signal: AbortSignal;
}
