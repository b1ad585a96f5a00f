/** A place in a bucket, `s3://BUCKET/PREFIX`: where exports are published (`export.url`) or the state is kept (`state.url`). */
export interface BucketPlace {
  bucket: string;
  /** Without leading or trailing slash; never empty, so the layout's keys never sit at a bucket's root. */
  prefix: string;
  /** As the user wrote it, normalised: s3://BUCKET/PREFIX. */
  url: string;
}

// S3's bucket naming rules: 3-63 characters of lower-case letters, digits, dots and hyphens, starting and
// ending with a letter or digit, and not shaped like an IP address. Underscores are let through, since
// Google Cloud Storage names may hold them (S3 refuses such a bucket itself, by name).
const BUCKET_NAME = /^[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]$/;
const IP_ADDRESS = /^\d{1,3}(\.\d{1,3}){3}$/;

/**
 * Parses `s3://BUCKET/PREFIX`. A prefix is required: the export and the state delete their own objects by
 * key, and a prefix keeps that away from whatever else the bucket holds. Throws one sentence naming
 * `field` and the value.
 */
export function parseBucketPlace(value: string, field: string): BucketPlace {
  const fail = (expected: string): never => {
    throw new Error(`${field} is "${value}"; expected ${expected}.`);
  };
  // A query or fragment is no part of an object key here: `s3://b/p?x` would otherwise be the prefix "p?x".
  if (/[?#]/.test(value)) return fail('s3://BUCKET/PREFIX without a query or fragment (no "?" or "#")');
  const match = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/]*)(?:\/(.*))?$/.exec(value);
  if (match === null) return fail('s3://BUCKET/PREFIX, e.g. s3://analytics-exports/loyalty');
  const [, scheme, bucket, rawPrefix = ''] = match;
  if (scheme !== 's3') return fail(`an s3:// URL (s3://BUCKET/PREFIX; "${scheme}://" is not supported: for GCS, R2 or MinIO use s3:// with export.s3.endpoint)`);
  if (bucket === '') return fail('a bucket name after s3://, as in s3://BUCKET/PREFIX');
  if (!BUCKET_NAME.test(bucket) || bucket.includes('..') || IP_ADDRESS.test(bucket)) {
    return fail(`a bucket name of 3 to 63 lower-case letters, digits, dots, hyphens and (on GCS) underscores, not shaped like an IP address ("${bucket}" is not one)`);
  }
  const prefix = rawPrefix.replace(/^\/+|\/+$/g, '');
  if (prefix === '') return fail(`a prefix after the bucket, as in s3://${bucket}/loyalty, so the export never writes or deletes at the bucket's root`);
  const segments = prefix.split('/');
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..')) return fail('a prefix without empty, "." or ".." segments');
  if (/[\u0000-\u001f\u007f\\]/.test(prefix)) return fail('a prefix without control characters or backslashes');
  return { bucket, prefix, url: `s3://${bucket}/${prefix}` };
}
