import { describe, expect, it } from 'vitest';
import { parseBucketPlace } from '../../src/bucket/place.js';

describe('parseBucketPlace', () => {
  it('splits a target into bucket and prefix, without trailing slashes', () => {
    expect(parseBucketPlace('s3://exports/loyalty/prod/', '--to')).toEqual({ bucket: 'exports', prefix: 'loyalty/prod', url: 's3://exports/loyalty/prod' });
    // Google Cloud Storage bucket names may hold underscores.
    expect(parseBucketPlace('s3://acme_exports/loyalty', '--to').bucket).toBe('acme_exports');
  });

  it.each([
    ['s3://', /^--to is "s3:\/\/"; expected a bucket name/],
    ['s3://UPPER_case', /^--to is "s3:\/\/UPPER_case"; expected a bucket name of 3 to 63 lower-case/],
    ['gs://x', /^--to is "gs:\/\/x"; expected an s3:\/\/ URL/],
    ['s3://192.168.1.10/loyalty', /^--to is "s3:\/\/192\.168\.1\.10\/loyalty"; expected a bucket name .*not shaped like an IP address/],
    ['s3://ab/loyalty', /^--to is "s3:\/\/ab\/loyalty"; expected a bucket name of 3 to 63/],
    ['s3://exports', /^--to is "s3:\/\/exports"; expected a prefix after the bucket/],
  ])('refuses %j in one sentence naming the value', (value, message) => {
    expect(() => parseBucketPlace(value, '--to')).toThrow(message);
  });
});
