/**
 * Exact sums of doubles as floating-point expansions (Shewchuk, "Adaptive Precision Floating-Point
 * Arithmetic", 1997): a sum is held as nonoverlapping doubles in increasing magnitude whose real
 * sum is the exact sum, grown one term at a time with error-free additions. The references use it
 * for a row's Σx and for d·x − Σx, which then carry no rounding error however much they cancel.
 */

/**
 * An exact running sum. Rows of float32 values need a handful of components at most (a float32
 * row spans under 300 bits), so it stays a few additions per term.
 */
export class ExactSum {
  /** The components, smallest first: parts[0 … length). */
  parts = new Float64Array(8);
  length = 0;

  reset(): void {
    this.length = 0;
  }

  /** Makes this sum equal to another. */
  copy(from: ExactSum): void {
    if (this.parts.length < from.length) this.parts = new Float64Array(from.parts.length);
    this.parts.set(from.parts.subarray(0, from.length));
    this.length = from.length;
  }

  /** Adds v exactly (Grow-Expansion with zero elimination). */
  add(v: number): void {
    let q = v,
      n = 0;
    const parts = this.parts;
    for (let i = 0; i < this.length; i++) {
      const e = parts[i]!;
      const s = q + e;
      const bv = s - q;
      const err = q - (s - bv) + (e - bv);
      q = s;
      if (err !== 0) parts[n++] = err;
    }
    if (q !== 0) {
      if (n === parts.length) this.grow();
      this.parts[n++] = q;
    }
    this.length = n;
  }

  /**
   * Absolute bound on the error of the last plus() beyond 2^-52 of its result: summing the grown
   * components from the smallest up rounds each partial sum, which only matters where they cancel.
   */
  lastSlack = 0;

  /**
   * x + (this sum) rounded to a double, without changing the sum: x is grown into the expansion on
   * the fly and the components are summed from the smallest up. Its error is at most 2^-52 of the
   * result plus lastSlack (0 whenever the grown expansion has one component, as near-constant rows
   * give); exactly 0 when x + sum is 0.
   */
  plus(x: number): number {
    let q = x,
      low = 0,
      spread = 0;
    const parts = this.parts;
    for (let i = 0; i < this.length; i++) {
      const e = parts[i]!;
      const s = q + e;
      const bv = s - q;
      const err = q - (s - bv) + (e - bv);
      low += err;
      spread += Math.abs(err);
      q = s;
    }
    this.lastSlack = this.length * 2 ** -52 * spread;
    return q + low;
  }

  /** The sum rounded to a double (within 2^-52 relative). */
  value(): number {
    return this.plus(0);
  }

  private grow(): void {
    const bigger = new Float64Array(this.parts.length * 2);
    bigger.set(this.parts);
    this.parts = bigger;
  }
}
