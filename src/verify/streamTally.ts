import type { StreamName } from '../config.js';
import { ID_LIST_CAP, type MirrorId, type RepairCounts, type StreamVerifyResult } from './types.js';

/** Ids of one kind of difference: the first ID_LIST_CAP in order found, and how many in all. */
class IdList {
  readonly ids: MirrorId[] = [];
  count = 0;

  add(id: MirrorId): void {
    this.count += 1;
    if (this.ids.length < ID_LIST_CAP) this.ids.push(id);
  }
}

/**
 * What one stream's verify found so far. Extras are held whole until the end (a later page may still
 * return a row whose span an earlier page covered): their number is that of the differences, not of the rows.
 */
export class StreamTally {
  compared = 0;
  unsynced = 0;
  readonly missing = new IdList();
  readonly stale = new IdList();
  readonly #extras = new Set<MirrorId>();

  suspectExtra(id: MirrorId): void {
    this.#extras.add(id);
  }

  /** The API returned `id`: it is not an extra, whatever an earlier page suggested. */
  seen(id: MirrorId): void {
    this.#extras.delete(id);
  }

  extraCount(): number {
    return this.#extras.size;
  }

  extras(): MirrorId[] {
    return [...this.#extras].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  result(stream: StreamName, missingBound: number | null, repaired: RepairCounts | undefined): StreamVerifyResult {
    const extras = this.extras();
    const result: StreamVerifyResult = {
      stream,
      compared: this.compared,
      missing: this.missing.ids,
      extra: extras.slice(0, ID_LIST_CAP),
      stale: this.stale.ids,
      missing_count: this.missing.count,
      extra_count: extras.length,
      stale_count: this.stale.count,
      unsynced: this.unsynced,
      missing_bound: missingBound,
    };
    if (repaired !== undefined) result.repaired = repaired;
    return result;
  }
}
