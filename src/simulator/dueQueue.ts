interface Entry<T> {
  due: number;
  /** Insertion order breaks ties, so items due at the same instant come out the same way on every run. */
  seq: number;
  item: T;
}

/**
 * Items ordered by the time they fall due (a binary min-heap), so a tick takes what its hour
 * made due without scanning a million rows that are not.
 */
export class DueQueue<T> {
  private readonly heap: Entry<T>[] = [];
  private nextSeq = 0;

  push(due: number, item: T): void {
    const heap = this.heap;
    heap.push({ due, seq: this.nextSeq++, item });
    let child = heap.length - 1;
    while (child > 0) {
      const parent = (child - 1) >>> 1;
      if (!before(heap[child], heap[parent])) break;
      [heap[child], heap[parent]] = [heap[parent], heap[child]];
      child = parent;
    }
  }

  /** Removes and returns, earliest first, every item due at or before `now`, with its due time. */
  takeDue(now: number): Array<{ due: number; item: T }> {
    const taken: Array<{ due: number; item: T }> = [];
    while (this.heap.length > 0 && this.heap[0].due <= now) {
      const { due, item } = this.pop();
      taken.push({ due, item });
    }
    return taken;
  }

  private pop(): Entry<T> {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop() as Entry<T>;
    if (heap.length === 0) return top;
    heap[0] = last;
    let parent = 0;
    for (;;) {
      const left = 2 * parent + 1;
      const right = left + 1;
      let smallest = parent;
      if (left < heap.length && before(heap[left], heap[smallest])) smallest = left;
      if (right < heap.length && before(heap[right], heap[smallest])) smallest = right;
      if (smallest === parent) return top;
      [heap[smallest], heap[parent]] = [heap[parent], heap[smallest]];
      parent = smallest;
    }
  }
}

function before<T>(a: Entry<T>, b: Entry<T>): boolean {
  return a.due < b.due || (a.due === b.due && a.seq < b.seq);
}
