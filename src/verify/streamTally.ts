import type { StreamName } from '../config.js';
import type { Verdict } from './differenceJudge.js';
import { ID_LIST_CAP, type DifferenceKind, type MirrorId, type PendingRow, type RepairCounts, type StreamVerifyResult } from './types.js';

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
  /** API rows found equal, or different by a defect. */
  compared = 0;
  /** Differences whose verdict waits for the judge's `settle`. */
  deferred = 0;
  readonly missing = new IdList();
  readonly stale = new IdList();
  readonly #extras = new Set<MirrorId>();
  readonly #pending: PendingRow[] = [];
  #pendingCount = 0;
  #unsynced = 0;

  suspectExtra(id: MirrorId): void {
    this.#extras.add(id);
  }

  /** The API returned `id`: it is not an extra, whatever an earlier page suggested. */
  seen(id: MirrorId): void {
    this.#extras.delete(id);
  }

  /** A difference and the judge's verdict on it. Extras are rows the API did not return, so they count as compared only when missing or stale. */
  judged(id: MirrorId, kind: DifferenceKind, verdict: Exclude<Verdict, { class: 'deferred' }>): void {
    if (verdict.class === 'pending') {
      this.#pendingCount += 1;
      if (verdict.pass === 'next sync') this.#unsynced += 1;
      if (this.#pending.length < ID_LIST_CAP) this.#pending.push({ id, kind, pass: verdict.pass, due: verdict.due });
    } else if (kind === 'extra') {
      this.#extras.add(id);
    } else {
      this.compared += 1;
      (kind === 'missing' ? this.missing : this.stale).add(id);
    }
  }

  /** Rows read from the API and judged (or waiting for it) so far. */
  read(): number {
    return this.compared + this.deferred + this.#pendingCount;
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
      defects: this.missing.count + extras.length + this.stale.count,
      pending: { count: this.#pendingCount, rows: this.#pending },
      unsynced: this.#unsynced,
      missing_bound: missingBound,
    };
    if (repaired !== undefined) result.repaired = repaired;
    return result;
  }
}
