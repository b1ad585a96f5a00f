import type { Config } from '../config.js';
import type { Db } from '../db/open.js';
import { configuredPlace, lastFullExport } from '../export/lastFullExport.js';
import type { OpsFacts } from '../metrics/facts.js';
import { createCheckpointStore } from '../sync/checkpoint.js';

/**
 * What `OpsFacts.lastSuccessesRead` takes, read from the mirror: the last successful sync of each
 * configured stream (a stream no longer configured is not watched, as in `status --check`) and the
 * last successful export of the kind the config asks for, where it asks for it (as in `status --check`):
 * an export to another place, or of fewer tables or formats, does not make the configured one current.
 */
export function lastSuccessFacts(db: Db, config: Readonly<Pick<Config, 'sync' | 'export'>>): Parameters<OpsFacts['lastSuccessesRead']>[0] {
  const checkpoints = createCheckpointStore(db);
  const syncs = config.sync.streams.flatMap((stream) => {
    const at = checkpoints.load(stream).lastSuccessAt;
    return at === null ? [] : [{ stream, at: new Date(at) }];
  });
  const exported = lastFullExport(db, config.export.formats, configuredPlace(config));
  return { syncs, export: exported === null ? null : new Date(exported.finishedAt) };
}
