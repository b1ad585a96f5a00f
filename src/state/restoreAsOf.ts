import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { createBucketClient } from '../bucket/client.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { StateError } from './errors.js';
import { LOG_FOLDER, seqOfLogPath, type LogEntry, type StateManifest } from './leaseLog.js';
import { restoreMirror, type RestoreReport } from './restoreMirror.js';
import { StateLog } from './stateLog.js';
import { bucketStateStore } from './store/bucketStateStore.js';
import { FolderStateStore } from './store/folderStateStore.js';
import type { StateStore } from './store/stateStore.js';
import { parseStateUrl } from './store/stateUrl.js';

/** How much later than its `writtenAt` the store may date an entry (a PUT retried under faults): listed entries dated later than this after the time asked for are not read. */
const ENTRY_DATING_SLACK_MS = 10 * 60 * 1000;

export interface RestoredAsOf {
  entry: LogEntry & { manifest: StateManifest };
  report: RestoreReport;
}

/**
 * Restores the state as it was saved at `asOfMs` (the newest log entry written at or before it that
 * names a saved state) into `target`, whose folder must be empty or missing: an older state is for
 * reading beside the live one, never over a mirror. Takes no lease and writes nothing to the bucket;
 * retention (`state.retainHours`) decides how far back a state can be restored.
 */
export async function restoreAsOf(config: Readonly<Config>, logger: Logger, asOfMs: number, target: string): Promise<RestoredAsOf> {
  const folder = dirname(target);
  const present = existsSync(folder) ? readdirSync(folder) : [];
  if (present.length > 0) throw new StateError(`The folder ${folder} holds ${present.length} file(s) (${present.slice(0, 3).join(', ')}); state restore writes only into an empty or new folder, so that no mirror is replaced.`);
  const place = parseStateUrl(config.state.url, 'Config key "state.url" (or LOYALTY_STATE_URL)');
  // Opened without the create-only probe: this command writes nothing to the state's place.
  const objects: StateStore =
    place.kind === 'folder' ? new FolderStateStore(place.path, place.url) : bucketStateStore(createBucketClient(config.export.s3), place.place, logger, config.export.s3.partSizeMiB * 1024 * 1024);
  const log = new StateLog(objects);
  const listed = (await objects.list(LOG_FOLDER))
    .map((object) => ({ seq: seqOfLogPath(object.path), modifiedMs: object.modifiedMs }))
    .filter((object): object is { seq: number; modifiedMs: number } => object.seq !== null)
    .sort((a, b) => b.seq - a.seq);
  if (listed.length === 0) throw new StateError(`The state at ${place.url} has no log entries; there is no saved state to restore.`);
  for (const { seq, modifiedMs } of listed) {
    if (modifiedMs > asOfMs + ENTRY_DATING_SLACK_MS) continue;
    const entry = await log.read(seq);
    if (entry === null || entry.manifest === null || Date.parse(entry.writtenAt) > asOfMs) continue;
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const report = await restoreMirror(objects, { ...entry, manifest: entry.manifest }, place.url, target, logger);
    return { entry: { ...entry, manifest: entry.manifest }, report };
  }
  const oldest = listed.at(-1)!;
  throw new StateError(
    `The state at ${place.url} has no save at or before ${new Date(asOfMs).toISOString()}; its oldest kept log entry (${oldest.seq}) is from ${new Date(oldest.modifiedMs).toISOString()}, and state.retainHours (${config.state.retainHours}) says how far back saves are kept.`,
  );
}
