import type { ApiRecord } from '../db/upsertRecords.js';
import type { StreamDefinition } from '../streams/index.js';

/** A record without a usable id cannot be stored (SQLite would invent one): the page is refused whole. */
export function checkIds(stream: StreamDefinition, items: unknown[]): asserts items is ApiRecord[] {
  for (const item of items) {
    const id = typeof item === 'object' && item !== null ? (item as { id?: unknown }).id : undefined;
    const ok = stream.keyType === 'integer' ? Number.isSafeInteger(id) : typeof id === 'string' && id !== '';
    if (ok) continue;
    // JSON numbers beyond 2^53 reach JavaScript already rounded: storing them would merge distinct records.
    if (typeof id === 'number' && Number.isInteger(id)) throw new Error(`the ${stream.name} list returned an id beyond 2^53 (about ${id}), which cannot be read exactly; loyalty-sync supports ids up to 9007199254740991`);
    throw new Error(`the ${stream.name} list returned a record without a valid ${stream.keyType} id (${JSON.stringify(id)})`);
  }
}
