import { describe, expect, it } from 'vitest';
import { MAX_ROWID, MIN_ROWID } from '../../../src/export/columnBatches.js';
import { fullRewrite, planIncremental, type PlannedFile } from '../../../src/export/delta/plan.js';

const options = { smallFileRows: 100, maxSmallFiles: 3 };
const file = (path: string, from: number, to: number, rows = 1000): PlannedFile => ({ path, from: BigInt(from), to: BigInt(to), rows });
const ids = (...values: number[]): bigint[] => values.map(BigInt);

describe('the incremental Delta plan', () => {
  const files = [file('a', 1, 1000), file('b', 1001, 2000), file('c', 2001, 3000)];

  it('rewrites nothing when nothing changed', () => {
    expect(planIncremental(files, [], options)).toEqual({ remove: [], slices: [] });
  });

  it('appends rows past the last file without touching any file (an immutable table)', () => {
    const plan = planIncremental(files, ids(3001, 3500), options);
    expect(plan.remove).toEqual([]);
    expect(plan.slices).toEqual([{ from: 3001n, to: MAX_ROWID }]);
  });

  it('rewrites only the file that holds a changed row, bounded by its unchanged neighbours', () => {
    const plan = planIncremental(files, ids(1500), options);
    expect(plan.remove.map((f) => f.path)).toEqual(['b']);
    expect(plan.slices).toEqual([{ from: 1001n, to: 2000n }]);
  });

  it('joins neighbouring changed files and the new rows after them into one slice', () => {
    const plan = planIncremental(files, ids(2500, 1999, 4000), options);
    expect(plan.remove.map((f) => f.path)).toEqual(['b', 'c']);
    expect(plan.slices).toEqual([{ from: 1001n, to: MAX_ROWID }]);
  });

  it("rewrites every file a changed range (a model update's note) touches, and the gaps inside it", () => {
    const plan = planIncremental(files, [], options, [{ from: 900n, to: 1100n }]);
    expect(plan.remove.map((f) => f.path)).toEqual(['a', 'b']);
    expect(plan.slices).toEqual([{ from: MIN_ROWID, to: 2000n }]);
    // Ranges far apart leave the unchanged file between them alone.
    const apart = planIncremental(files, [], options, [{ from: 10n, to: 20n }, { from: 2500n, to: 4000n }]);
    expect(apart.remove.map((f) => f.path)).toEqual(['a', 'c']);
  });

  it('keeps slices apart where an unchanged file lies between them, so file ranges never overlap', () => {
    const plan = planIncremental(files, ids(5, 2999), options);
    expect(plan.remove.map((f) => f.path)).toEqual(['a', 'c']);
    expect(plan.slices).toEqual([
      { from: MIN_ROWID, to: 1000n },
      { from: 2001n, to: MAX_ROWID },
    ]);
  });

  it('writes a gap between files that new rows fell into, and nothing else', () => {
    const gapped = [file('a', 1, 100), file('b', 500, 600)];
    const plan = planIncremental(gapped, ids(300), options);
    expect(plan.remove).toEqual([]);
    expect(plan.slices).toEqual([{ from: 101n, to: 499n }]);
  });

  it('merges small neighbouring files once more than maxSmallFiles pile up, and leaves a lone small file alone', () => {
    const days = [file('big', 1, 1000), file('lone', 1001, 1010, 10), file('big2', 1011, 2000), ...[0, 1, 2, 3].map((i) => file(`day${i}`, 2001 + i * 10, 2010 + i * 10, 10))];
    const plan = planIncremental(days, [], options);
    expect(plan.remove.map((f) => f.path)).toEqual(['day0', 'day1', 'day2', 'day3']);
    expect(plan.slices).toEqual([{ from: 2001n, to: MAX_ROWID }]);
    expect(planIncremental(days.slice(0, 5), [], options)).toEqual({ remove: [], slices: [] });
  });

  it('refuses files whose ranges overlap: the table was not laid out by this writer', () => {
    expect(() => planIncremental([file('a', 1, 10), file('b', 5, 20)], [], options)).toThrow(/overlapping rowids/);
  });

  it('a full rewrite removes every file and writes every rowid', () => {
    expect(fullRewrite(files)).toEqual({ remove: files, slices: [{ from: MIN_ROWID, to: MAX_ROWID }] });
  });
});
