/**
 * Exact decimal arithmetic for money in the ledger (sums of orders' amounts, points times a point's value),
 * on bigints: decimal strings never pass through floats.
 */
export class ExactDecimal {
  private constructor(
    /** The value times 10^scale. */
    private readonly units: bigint,
    private readonly scale: number,
  ) {}

  static readonly ZERO = new ExactDecimal(0n, 0);

  /** A plain decimal string (`-12.50`, `3`); null for anything else. */
  static parse(text: string | null): ExactDecimal | null {
    if (text === null) return null;
    const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
    if (match === null) return null;
    const fraction = match[3] ?? '';
    const units = BigInt(match[2] + fraction);
    return new ExactDecimal(match[1] === '-' ? -units : units, fraction.length);
  }

  static ofInteger(value: number): ExactDecimal {
    return new ExactDecimal(BigInt(value), 0);
  }

  plus(other: ExactDecimal): ExactDecimal {
    const scale = Math.max(this.scale, other.scale);
    return new ExactDecimal(this.at(scale) + other.at(scale), scale);
  }

  minus(other: ExactDecimal): ExactDecimal {
    const scale = Math.max(this.scale, other.scale);
    return new ExactDecimal(this.at(scale) - other.at(scale), scale);
  }

  times(other: ExactDecimal): ExactDecimal {
    return new ExactDecimal(this.units * other.units, this.scale + other.scale);
  }

  /** For shares only (a ratio of two sums), where a float is what the column holds. */
  toNumber(): number {
    return Number(this.toString());
  }

  isPositive(): boolean {
    return this.units > 0n;
  }

  /** Plain notation with at least two fraction digits (money), trailing zeros beyond them dropped. */
  toString(): string {
    const scale = Math.max(this.scale, 2);
    const digits = (this.units < 0n ? -this.units : this.units) * 10n ** BigInt(scale - this.scale);
    const text = digits.toString().padStart(scale + 1, '0');
    let fraction = text.slice(text.length - scale);
    while (fraction.length > 2 && fraction.endsWith('0')) fraction = fraction.slice(0, -1);
    return `${this.units < 0n ? '-' : ''}${text.slice(0, text.length - scale)}.${fraction}`;
  }

  private at(scale: number): bigint {
    return this.units * 10n ** BigInt(scale - this.scale);
  }
}
