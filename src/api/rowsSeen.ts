/**
 * Which rows a pass has read so far, in constant memory whatever the pass's length: each row sets two
 * bits, chosen by hashing its id (and its `updated_at`, so a record changed since it was read counts as
 * new), in a fixed table of 2^24 bits (2 MiB). A Set of ids would grow by tens of MB on a pass of a
 * million rows. A row never read can look read (two bits set by others: about 1% of rows after a
 * million), but a row read is always known; whole pages of false look-alikes do not happen by chance.
 */
export class RowsSeen {
  readonly #bits = new Int32Array(TABLE_BITS / 32);

  /** Notes the page's rows as read; true when every one of them was read before (false for an empty page). */
  addPage(items: readonly unknown[]): boolean {
    let allSeen = items.length > 0;
    for (const item of items) {
      if (!this.#add(item)) allSeen = false;
    }
    return allSeen;
  }

  /** Sets the row's two bits; true when both were set already. */
  #add(item: unknown): boolean {
    if (typeof item !== 'object' || item === null) return false;
    const { id, updated_at: updatedAt } = item as { id?: unknown; updated_at?: unknown };
    // The sync refuses a page with an id that is not a safe integer; until then it simply counts as new.
    if (typeof id !== 'number') return false;
    let low = id >>> 0;
    let high = Math.floor(id / 2 ** 32) >>> 0;
    if (typeof updatedAt === 'string') {
      for (let i = 0; i < updatedAt.length; i++) high = Math.imul(high ^ updatedAt.charCodeAt(i), 0x01000193);
    }
    low = mix(low ^ Math.imul(high, 0x9e3779b1));
    high = mix(high ^ low);
    return (this.#set(low & INDEX_MASK) & this.#set(high & INDEX_MASK)) === 1;
  }

  /** Sets one bit; 1 when it was set already. */
  #set(bit: number): number {
    const word = bit >>> 5;
    const mask = 1 << (bit & 31);
    const before = this.#bits[word];
    this.#bits[word] = before | mask;
    return (before & mask) === 0 ? 0 : 1;
  }
}

const TABLE_BITS = 2 ** 24;
const INDEX_MASK = TABLE_BITS - 1;

/** Spreads every input bit over the output (murmur3's finaliser), so ids in a run do not share bits. */
function mix(value: number): number {
  let h = value;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
