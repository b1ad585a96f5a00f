import { MAX_ROWID, MIN_ROWID } from '../columnBatches.js';

/**
 * Which files an incremental Delta commit rewrites. A table's files each hold a contiguous range of
 * mirror rowids, and no two ranges overlap; rows between two files' ranges are rows the table does not
 * hold. A changed row lies either inside one file's range (that file is rewritten) or in a gap between
 * files (new rows: the gap is written). Rewriting a run of neighbouring files and gaps as one slice of
 * rowids keeps the ranges disjoint. Pure: no I/O, so it is tested on its own.
 */

export interface PlannedFile {
  path: string;
  /** The rowid range the file covers, inclusive. */
  from: bigint;
  to: bigint;
  rows: number;
}

/** A slice of rowids to write again, inclusive: every live row in it goes into new files. */
export interface RowidSlice {
  from: bigint;
  to: bigint;
}

export interface WritePlan {
  /** Files whose rows are written again (they leave the table). */
  remove: PlannedFile[];
  slices: RowidSlice[];
}

export interface PlanOptions {
  /** Files with fewer rows than this are small; neighbouring small files are merged once `maxSmallFiles` of them pile up. */
  smallFileRows: number;
  maxSmallFiles: number;
}


/** A first export, or one that cannot trust the table to match the mirror's past: every file goes, every row is written. */
export function fullRewrite(files: readonly PlannedFile[]): WritePlan {
  return { remove: [...files], slices: [{ from: MIN_ROWID, to: MAX_ROWID }] };
}

/**
 * `files` must have disjoint ranges (checked); `changed` holds the rowids of rows changed since the
 * table's version, in any order, and `changedRanges` ranges of rowids any of which may have changed (a
 * model's updates note those). Returns no slices when nothing changed and nothing needs compacting.
 */
export function planIncremental(files: readonly PlannedFile[], changed: readonly bigint[], options: PlanOptions, changedRanges: readonly RowidSlice[] = []): WritePlan {
  const sorted = [...files].sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
  for (let i = 1; i < sorted.length; i += 1) {
    if (sorted[i].from <= sorted[i - 1].to) throw new Error(`files ${sorted[i - 1].path} and ${sorted[i].path} cover overlapping rowids; the table was not laid out by this writer.`);
  }
  // Slot 2i is the gap before file i, slot 2i+1 is file i, slot 2n the gap after the last file.
  const marked = new Uint8Array(sorted.length * 2 + 1);
  for (const rowid of changed) marked[slotOf(sorted, rowid)] = 1;
  // Slots run in rowid order: a range marks every file and gap from its first rowid's to its last's.
  for (const range of changedRanges) marked.fill(1, slotOf(sorted, range.from), slotOf(sorted, range.to) + 1);
  markMergeableSmallFiles(sorted, marked, options);

  const remove: PlannedFile[] = [];
  const slices: RowidSlice[] = [];
  let sliceFrom = MIN_ROWID;
  let sliceMarked = false;
  for (let slot = 0; slot < marked.length; slot += 1) {
    const isFile = slot % 2 === 1;
    const file = isFile ? sorted[(slot - 1) / 2] : null;
    if (file !== null && marked[slot] === 0) {
      // An unchanged file ends the slice before it; the next one starts after it.
      if (sliceMarked) slices.push({ from: sliceFrom, to: file.from - 1n });
      sliceFrom = file.to + 1n;
      sliceMarked = false;
      continue;
    }
    if (marked[slot] === 1) sliceMarked = true;
    if (file !== null) remove.push(file);
  }
  if (sliceMarked) slices.push({ from: sliceFrom, to: MAX_ROWID });
  return { remove, slices };
}

/** The slot (see above) a rowid falls in, by binary search over the sorted, disjoint files. */
function slotOf(sorted: readonly PlannedFile[], rowid: bigint): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (sorted[middle].to < rowid) low = middle + 1;
    else high = middle;
  }
  // sorted[low] is the first file ending at or after rowid.
  if (low < sorted.length && sorted[low].from <= rowid) return 2 * low + 1;
  return 2 * low;
}

/**
 * Compaction: once more than `maxSmallFiles` small files pile up (each day's new transactions make one),
 * every small file that has a small or rewritten neighbour is rewritten, so neighbours merge into one.
 * A lone small file between large unchanged ones stays: rewriting it would merge nothing.
 */
function markMergeableSmallFiles(sorted: readonly PlannedFile[], marked: Uint8Array, options: PlanOptions): void {
  const small = sorted.map((file) => file.rows < options.smallFileRows);
  if (small.filter(Boolean).length <= options.maxSmallFiles) return;
  const rewritten = sorted.map((_, i) => marked[2 * i + 1] === 1);
  sorted.forEach((_, i) => {
    if (!small[i]) return;
    const neighbour = (j: number): boolean => j >= 0 && j < sorted.length && (small[j] || rewritten[j]);
    if (neighbour(i - 1) || neighbour(i + 1)) marked[2 * i + 1] = 1;
  });
}
