import { posix } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseBucketPlace, type BucketPlace } from '../../bucket/place.js';

/** Where `state.url` keeps the state: a bucket and prefix (s3://), or a local or mounted folder (file://). */
export type StatePlace = { kind: 'bucket'; place: BucketPlace; url: string } | { kind: 'folder'; path: string; url: string };

/**
 * Parses `state.url`: `s3://BUCKET/PREFIX` (see parseBucketPlace), or `file:///ABSOLUTE/PATH` (or
 * `file://localhost/PATH`) for a folder. A folder's path must be absolute and name a folder below the
 * root, so a relative path never depends on where the command was started. Throws one sentence naming
 * `field` and the value.
 */
export function parseStateUrl(value: string, field: string): StatePlace {
  if (!/^file:/i.test(value)) {
    const place = parseBucketPlace(value, field);
    return { kind: 'bucket', place, url: place.url };
  }
  const fail = (expected: string): never => {
    throw new Error(`${field} is "${value}"; expected ${expected}.`);
  };
  const shape = /^file:\/\/(?:localhost)?(\/[^?#]*)$/i.exec(value);
  if (shape === null) {
    if (/[?#]/.test(value)) return fail('file:///ABSOLUTE/PATH without a query or fragment');
    return fail('file:///ABSOLUTE/PATH with an absolute path (three slashes, e.g. file:///var/lib/loyalty-sync/state), not a relative path or a host name');
  }
  let path: string;
  try {
    path = fileURLToPath(`file://${shape[1]}`);
  } catch (error) {
    return fail(`file:///ABSOLUTE/PATH (${(error as Error).message})`);
  }
  if (path.split('/').some((segment) => segment === '.' || segment === '..')) return fail('a path without "." or ".." segments');
  if (/[\u0000-\u001f\u007f]/.test(path)) return fail('a path without control characters');
  const folder = posix.normalize(path).replace(/\/+$/, '');
  if (folder === '') return fail('a folder below the root, e.g. file:///var/lib/loyalty-sync/state, since the state deletes its own files there');
  return { kind: 'folder', path: folder, url: pathToFileURL(folder).href };
}
