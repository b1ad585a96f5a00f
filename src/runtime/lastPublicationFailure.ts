import type { Config } from '../config.js';
import type { Db } from '../db/open.js';
import { lastFailedPublication } from '../export/publications.js';
import { parseBucketPlace } from '../bucket/place.js';

/** When the newest publication to the configured bucket (export.url) failed, from the mirror; null without a target or a failure. */
export function lastPublicationFailure(db: Db, config: Readonly<Pick<Config, 'export'>>): Date | null {
  if (config.export.url === '') return null;
  const at = lastFailedPublication(db, parseBucketPlace(config.export.url, 'export.url').url);
  return at === null ? null : new Date(at);
}
