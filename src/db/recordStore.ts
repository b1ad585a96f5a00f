import type { StreamName } from '../config.js';
import type { StreamDefinition } from '../streams/index.js';
import type { Db } from './open.js';
import { createUnsubscribeUpserter, createUpserter, type ApiRecord, type UpsertResult } from './upsertRecords.js';

export type Upsert = (records: readonly ApiRecord[], changeSeq: number, now: string) => UpsertResult;

/**
 * The one way a record reaches the mirror: the sync's page groups and `verify --repair` both store
 * through it, so a repaired row is mapped, compared and marked changed exactly as a synced one.
 * Returns the stream's upserter, prepared once per connection.
 */
export function createRecordStore(db: Db): (stream: StreamDefinition) => Upsert {
  const upserters = new Map<StreamName, Upsert>();
  return (stream) => {
    let upsert = upserters.get(stream.name);
    if (upsert === undefined) {
      upsert = stream.strategy.kind === 'full-walk' ? createUnsubscribeUpserter(db, stream) : createUpserter(db, stream);
      upserters.set(stream.name, upsert);
    }
    return upsert;
  };
}
