/** mulberry32: tiny, fast and good enough for test data; the same seed always gives the same sequence. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    // Mixing the seed once keeps seeds 1, 2, 3 from starting with correlated outputs.
    this.state = Math.imul((seed | 0) ^ 0x9e3779b9, 0x85ebca6b) >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  hex(length: number): string {
    let out = '';
    while (out.length < length) out += Math.floor(this.next() * 0x10000).toString(16).padStart(4, '0');
    return out.slice(0, length);
  }
}
