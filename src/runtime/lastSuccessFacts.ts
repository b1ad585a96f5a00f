import type { StreamName } from '../config.js';
import type { Db } from '../db/open.js';
import { lastExport } from '../export/index.js';
import type { OpsFacts } from '../metrics/facts.js';
import { createCheckpointStore } from '../sync/checkpoint.js';

/**
 * What `OpsFacts.lastSuccessesRead` takes, read from the mirror: the last successful sync of each
 * configured stream (a stream no longer configured is not watched, as in `status --check`) and the
 * last successful export.
 */
export function lastSuccessFacts(db: Db, streams: readonly StreamName[]): Parameters<OpsFacts['lastSuccessesRead']>[0] {
  const checkpoints = createCheckpointStore(db);
  const syncs = streams.flatMap((stream) => {
    const at = checkpoints.load(stream).lastSuccessAt;
    return at === null ? [] : [{ stream, at: new Date(at) }];
  });
  const exported = lastExport(db);
  return { syncs, export: exported === null ? null : new Date(exported.finishedAt) };
}
