import { mkdirSync } from 'node:fs';
import { createBucketClient } from '../../bucket/client.js';
import { createOnlyWritesAt, PROBE_PATH } from '../../bucket/createOnlyWrites.js';
import type { Config } from '../../config.js';
import type { Logger } from '../../log.js';
import { StateError } from '../errors.js';
import { bucketStateStore } from './bucketStateStore.js';
import { FolderStateStore } from './folderStateStore.js';
import type { StateStore } from './stateStore.js';
import { parseStateUrl } from './stateUrl.js';

const STATE_URL_FIELD = 'Config key "state.url" (or LOYALTY_STATE_URL)';

/**
 * The store at `state.url`, once it has shown that it keeps create-only writes atomic: without that,
 * the log's lease could not keep two runs apart, so a store that cannot is refused with one sentence.
 * `vet` reads the store before the probe writes anything, and may refuse it by throwing.
 */
export async function openStateStore(config: Readonly<Config>, logger: Logger, vet: (store: StateStore) => Promise<void> = async () => undefined): Promise<StateStore> {
  const at = parseStateUrl(config.state.url, STATE_URL_FIELD);
  if (at.kind === 'folder') return openFolder(at.path, at.url, vet);
  const client = createBucketClient(config.export.s3);
  const store = bucketStateStore(client, at.place, logger, config.export.s3.partSizeMiB * 1024 * 1024);
  await vet(store);
  const writes = await createOnlyWritesAt(store.objects);
  if (writes !== 'enforced') {
    const what = writes === 'ignored' ? 'accepts create-only writes (If-None-Match: *) but ignores them' : 'refuses create-only writes (If-None-Match: *)';
    throw new StateError(
      `The object store at ${client.endpointLabel} ${what}, so a lease on ${at.url} could not keep two runs apart; state.url needs AWS S3, GCS, R2, MinIO, Ceph, or Swift 2.36 or newer.`,
    );
  }
  return store;
}

const PROBE_BODY = Buffer.from('loyalty-sync checks here that this filesystem refuses a second hard link to one name; safe to delete.\n');

/** The folder, created owner-only when missing, probed with two create-only writes of one name: the second must be refused. */
async function openFolder(path: string, url: string, vet: (store: StateStore) => Promise<void>): Promise<StateStore> {
  const store = new FolderStateStore(path, url);
  await vet(store);
  try {
    mkdirSync(path, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new StateError(`${STATE_URL_FIELD} is "${url}", but the folder ${path} cannot be created: ${(error as Error).message}.`, { cause: error });
  }
  const first = await store.putCreateOnly(PROBE_PATH, PROBE_BODY);
  if (first === 'refused') {
    throw new StateError(
      `The filesystem of ${path} (state.url ${url}) has no hard links (link(2)), which the state's create-only log entries need; use a local disk, an NFS or SMB mount with hard links, or an s3:// state.`,
    );
  }
  // Another process probing now holds the name: its create already showed that a second one is refused.
  if (first === 'exists') return store;
  try {
    if ((await store.putCreateOnly(PROBE_PATH, PROBE_BODY)) !== 'exists') {
      throw new StateError(`The filesystem of ${path} (state.url ${url}) let a second hard link replace an existing name, so a lease there could not keep two runs apart; use a local disk, NFS or SMB, or an s3:// state.`);
    }
  } finally {
    await store.delete([PROBE_PATH]);
  }
  return store;
}
