/**
 * Closed id intervals already compared, merged as they are added. A page covers the span from its
 * smallest to its largest id; the mirror rows outside every span are the ones no page could vouch for.
 */
export class IdSpans {
  /** Sorted, disjoint, not touching. */
  readonly #spans: Array<[number, number]> = [];

  /** Spans stored with `list()` (a checkpoint's), taken as they are. */
  static from(spans: ReadonlyArray<readonly [number, number]>): IdSpans {
    const restored = new IdSpans();
    for (const [low, high] of spans) restored.add(low, high);
    return restored;
  }

  /** The spans, for a checkpoint. */
  list(): Array<[number, number]> {
    return this.#spans.map(([low, high]) => [low, high]);
  }

  add(low: number, high: number): void {
    const last = this.#spans.at(-1);
    // Pages read in ascending order land past the last span: no search, no sort.
    if (last === undefined || low > last[1] + 1) {
      this.#spans.push([low, high]);
      return;
    }
    const kept: Array<[number, number]> = [];
    let merged: [number, number] = [low, high];
    for (const span of this.#spans) {
      if (span[1] < merged[0] - 1 || span[0] > merged[1] + 1) kept.push(span);
      else merged = [Math.min(span[0], merged[0]), Math.max(span[1], merged[1])];
    }
    kept.push(merged);
    kept.sort((a, b) => a[0] - b[0]);
    this.#spans.splice(0, this.#spans.length, ...kept);
  }

  /**
   * The parts of [low, high] no span covers yet, in order, as closed intervals: the ground a new page is
   * the first to vouch for.
   */
  uncovered(low: number, high: number): Array<[number, number]> {
    const last = this.#spans.at(-1);
    if (last === undefined || low > last[1]) return [[low, high]];
    const parts: Array<[number, number]> = [];
    let from = low;
    for (const [spanLow, spanHigh] of this.#spans) {
      if (spanHigh < from) continue;
      if (spanLow > high) break;
      if (spanLow > from) parts.push([from, spanLow - 1]);
      from = spanHigh + 1;
      if (from > high) return parts;
    }
    parts.push([from, high]);
    return parts;
  }

  covers(id: number): boolean {
    let low = 0;
    let high = this.#spans.length - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const [from, to] = this.#spans[mid];
      if (id < from) high = mid - 1;
      else if (id > to) low = mid + 1;
      else return true;
    }
    return false;
  }

  /** The open intervals between the spans, and below and above them: [after, before), null for no bound. */
  gaps(): Array<{ above: number | null; below: number | null }> {
    if (this.#spans.length === 0) return [{ above: null, below: null }];
    const gaps: Array<{ above: number | null; below: number | null }> = [{ above: null, below: this.#spans[0][0] }];
    for (let i = 1; i < this.#spans.length; i++) gaps.push({ above: this.#spans[i - 1][1], below: this.#spans[i][0] });
    gaps.push({ above: this.#spans[this.#spans.length - 1][1], below: null });
    return gaps;
  }
}
