import { createHash } from 'node:crypto';
import type { BucketClient } from './client.js';
import { isConditionalConflict, isPreconditionFailed, refusesConditions, sdkError } from './errors.js';
import type { BucketObjects } from './objects.js';
import { withTries } from './tries.js';

/**
 * What a store does with `If-None-Match: *` on PutObject (create only if absent), as a probe saw it:
 * - `enforced`: a second create-only PUT of a key is refused (412), as on AWS S3, R2, MinIO, GCS and
 *   Swift from 2.36: a create-only PUT is atomic.
 * - `refused`: the store refuses the header itself (501, or a 400 naming it), as Swift before 2.36 does.
 * - `ignored`: the store accepts the header and overwrites the key (answers 200), as s3rver does: a
 *   create-only PUT there proves nothing, and two writers would both "create" the same key.
 */
export type CreateOnlyWrites = 'enforced' | 'refused' | 'ignored';

/** The probe's one object, relative to the place's prefix; removed after the probe where the store allows. */
export const PROBE_PATH = '.loyalty-sync-create-only-probe';

const PROBE_BODY = Buffer.from('loyalty-sync checks here that this store refuses a second create-only PUT of one key; safe to delete.\n');
/** Tries of a create-only PUT the store answered 409 ConditionalRequestConflict (another one to the key was in flight). */
const CONFLICT_TRIES = 5;

/**
 * A create-only PUT of `path`: `created` when the store answered 200, `exists` when it refused because
 * an object is there (412), `refused` when it does not take the header. Anything else is thrown.
 */
export async function putCreateOnly(objects: BucketObjects, path: string, body: Buffer, contentType?: string): Promise<'created' | 'exists' | 'refused'> {
  try {
    const sha256 = createHash('sha256').update(body).digest('hex');
    await withTries(
      CONFLICT_TRIES,
      (error) => isConditionalConflict(sdkError(error)),
      () => objects.putBytes(path, body, sha256, { IfNoneMatch: '*', ...(contentType === undefined ? {} : { ContentType: contentType }) }),
    );
    return 'created';
  } catch (error) {
    const cause = sdkError(error);
    if (isPreconditionFailed(cause)) return 'exists';
    if (refusesConditions(cause)) return 'refused';
    throw error;
  }
}

/**
 * Probes the place (a bucket and prefix) with one object: a create-only PUT, then a second one of the
 * same key, which must be refused. A first PUT that already meets an object (a probe another process runs
 * now, or one a store that forbids deletes kept) shows the store refusing too. Only an object this probe
 * created is deleted afterwards, so two processes probing at once never judge each other's object.
 */
export async function probeCreateOnly(objects: BucketObjects): Promise<CreateOnlyWrites> {
  const first = await putCreateOnly(objects, PROBE_PATH, PROBE_BODY);
  if (first === 'refused') return 'refused';
  if (first === 'exists') return 'enforced';
  try {
    return (await putCreateOnly(objects, PROBE_PATH, PROBE_BODY)) === 'exists' ? 'enforced' : 'ignored';
  } finally {
    // A store that forbids deletes keeps the one object; the next probe meets it and is answered by it.
    await objects.delete([PROBE_PATH]).catch(() => undefined);
  }
}

/** The verdict per client and place (bucket/prefix): one probe each, shared by every caller meanwhile. */
const verdicts = new WeakMap<BucketClient, Map<string, Promise<CreateOnlyWrites>>>();

/**
 * How the place of `objects` treats create-only writes, probed on the first call for its client and
 * place. `onProbed` hears the verdict of a probe this call ran, so that what follows from it (a warning,
 * a refusal) is said once per place, not once per caller. A probe that failed (the store could not be
 * reached) is not remembered: the next call probes again.
 */
export function createOnlyWritesAt(objects: BucketObjects, onProbed?: (writes: CreateOnlyWrites) => void): Promise<CreateOnlyWrites> {
  const places = verdicts.get(objects.client) ?? new Map<string, Promise<CreateOnlyWrites>>();
  verdicts.set(objects.client, places);
  const place = `${objects.target.bucket}/${objects.target.prefix}`;
  const known = places.get(place);
  if (known !== undefined) return known;
  const probed = probeCreateOnly(objects).then((writes) => {
    onProbed?.(writes);
    return writes;
  });
  places.set(place, probed);
  probed.catch(() => places.delete(place));
  return probed;
}
