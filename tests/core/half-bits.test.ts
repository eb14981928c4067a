// The half-precision helpers exported from the package root, float32ToHalfBits and
// halfBitsToFloat32: every one of the 65,536 float16 and bfloat16 patterns widened exactly (checked
// against the formats' definitions) and back unchanged; narrowing rounds to nearest with ties to
// even at every tie of both types (checked against the nearest value found in a table of them all);
// every NaN becomes the type's quiet NaN with its sign; and the kernels' own conversions, on both
// backends, give the helpers' bits.
import { beforeAll, describe, expect, it } from 'vitest';
import { float32ToHalfBits, halfBitsToFloat32, init, type LayerNormRuntime } from '../../dist/index.js';
import { bitDifference } from '../helpers/bits.js';
import { rng } from '../helpers/cases.js';

const DTYPES = ['float16', 'bfloat16'] as const;
type Half = (typeof DTYPES)[number];

const ALL = Uint16Array.from({ length: 65536 }, (_, i) => i);
const QUIET_NAN: Record<Half, number> = { float16: 0x7e00, bfloat16: 0x7fc0 };
const isNaNBits: Record<Half, (h: number) => boolean> = {
  float16: (h) => (h & 0x7c00) === 0x7c00 && (h & 0x3ff) !== 0,
  bfloat16: (h) => (h & 0x7f80) === 0x7f80 && (h & 0x7f) !== 0,
};

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
const fromBits = (bits: number) => ((u32[0] = bits), f32[0]!);
const toBits = (v: number) => ((f32[0] = v), u32[0]!);
/** float32 values from their bit patterns (NaN payloads kept: written through the bits). */
const floatsOf = (bits: number[]) => new Float32Array(Uint32Array.from(bits).buffer);

/** IEEE binary16 by its definition: (−1)^s · 2^(e−15) · 1.m, subnormals 2^−14 · 0.m. */
function float16Value(h: number): number {
  const sign = h & 0x8000 ? -1 : 1,
    e = (h >> 10) & 31,
    m = h & 1023;
  if (e === 31) return m === 0 ? sign * Infinity : NaN;
  return sign * (e === 0 ? m * 2 ** -24 : (1024 + m) * 2 ** (e - 25));
}

/** Every finite non-negative value of the type, ascending, with its bit pattern's index. */
function finiteValues(dtype: Half): Float64Array {
  const top = dtype === 'float16' ? 0x7bff : 0x7f7f;
  return Float64Array.from({ length: top + 1 }, (_, i) => (dtype === 'float16' ? float16Value(i) : fromBits(i << 16)));
}

/**
 * The pattern nearest to v (a finite float32 value), ties to the even pattern, by search in the table
 * of every value: the definition of round-to-nearest-even, independent of the bit tricks under test.
 * Past the largest finite value the next step up is Infinity (the pattern after the largest).
 */
function nearest(v: number, table: Float64Array): number {
  const sign = v < 0 || Object.is(v, -0) ? 0x8000 : 0;
  const a = Math.abs(v);
  let lo = 0,
    hi = table.length - 1;
  if (a >= table[hi]!) {
    const step = table[hi]! - table[hi - 1]!; // the spacing Infinity would continue
    const mid = table[hi]! + step / 2;
    return sign | (a < mid ? hi : a > mid ? hi + 1 : hi % 2 === 0 ? hi : hi + 1);
  }
  while (hi - lo > 1) {
    const m = (lo + hi) >> 1;
    if (table[m]! <= a) lo = m;
    else hi = m;
  }
  const dl = a - table[lo]!,
    dh = table[hi]! - a;
  return sign | (dl < dh ? lo : dh < dl ? hi : lo % 2 === 0 ? lo : hi);
}

/** Float32 values at and around every tie of the type: each midpoint and its float32 neighbours. */
function tiesAndNeighbours(table: Float64Array): number[] {
  const values: number[] = [];
  for (let i = 0; i < table.length; i++) {
    const next = i + 1 < table.length ? table[i + 1]! : table[i]! + (table[i]! - table[i - 1]!);
    const mid = toBits((table[i]! + next) / 2);
    if (fromBits(mid) !== (table[i]! + next) / 2) throw new Error('a midpoint is not a float32 value');
    for (const bits of [mid - 1, mid, mid + 1]) values.push(fromBits(bits), -fromBits(bits));
  }
  return values;
}

describe.each(DTYPES)('%s', (dtype) => {
  const table = finiteValues(dtype);

  it('halfBitsToFloat32 widens all 65,536 patterns exactly (NaN payloads kept)', () => {
    const wide = halfBitsToFloat32(ALL, dtype);
    const wideBits = new Uint32Array(wide.buffer);
    let wrong = -1;
    for (let h = 0; h < 65536; h++) {
      if (isNaNBits[dtype](h)) {
        // The payload moves up with the exponent: 13 bits for float16, 16 for bfloat16.
        const expected = dtype === 'float16' ? ((h & 0x8000) << 16) | 0x7f800000 | ((h & 0x3ff) << 13) : h << 16;
        if (wideBits[h] !== expected >>> 0) wrong = h;
      } else if (!Object.is(wide[h], dtype === 'float16' ? float16Value(h) : fromBits(h << 16))) wrong = h;
    }
    expect(wrong, 'first pattern widened wrongly').toBe(-1);
  });

  it('float32ToHalfBits gives every pattern back unchanged, and each NaN as the quiet NaN with its sign', () => {
    const back = float32ToHalfBits(halfBitsToFloat32(ALL, dtype), dtype);
    const expected = ALL.map((h) => (isNaNBits[dtype](h) ? (h & 0x8000) | QUIET_NAN[dtype] : h));
    expect(bitDifference(back, expected)).toBeNull();
    expect(back[0x8000]).toBe(0x8000); // −0 stays −0
  });

  it('rounds to nearest, ties to even, at and beside every tie (overflow to Infinity included)', () => {
    const values = tiesAndNeighbours(table);
    const got = float32ToHalfBits(Float32Array.from(values), dtype);
    let wrong = -1;
    for (let i = 0; i < values.length; i++) if (got[i] !== nearest(values[i]!, table)) wrong = i;
    expect(
      wrong === -1
        ? null
        : `${values[wrong]} → ${got[wrong]!.toString(16)}, expected ${nearest(values[wrong]!, table).toString(16)}`,
    ).toBeNull();
    // The ties at the top: the largest finite value's midpoint to Infinity rounds to Infinity (even).
    const inf = dtype === 'float16' ? 0x7c00 : 0x7f80;
    const top = dtype === 'float16' ? 65520 : fromBits(0x7f7f8000);
    expect(Array.from(float32ToHalfBits(Float32Array.of(top, -top, Infinity, -Infinity), dtype))).toEqual([
      inf,
      inf | 0x8000,
      inf,
      inf | 0x8000,
    ]);
  });

  it('rounds 200,000 random float32 patterns to the nearest value of the type (seeded)', () => {
    const rand = rng(20261205);
    const bits: number[] = [];
    while (bits.length < 200_000) {
      const b = Math.floor(rand() * 2 ** 32);
      if ((b & 0x7fffffff) <= 0x7f800000) bits.push(b); // not NaN
    }
    const values = floatsOf(bits);
    const got = float32ToHalfBits(values, dtype);
    let wrong = -1;
    for (let i = 0; i < values.length; i++) if (got[i] !== nearest(values[i]!, table)) wrong = i;
    expect(wrong, `first wrong: ${values[wrong]}`).toBe(-1);
  });

  it('turns every kind of float32 NaN into the quiet NaN of the type, keeping its sign', () => {
    const rand = rng(20261206);
    const payloads = [1, 0x400000, 0x7fffff, 0x200000, 0x1fff, 0x2000, 0xffff, 0x10000];
    for (let i = 0; i < 1000; i++) payloads.push(1 + Math.floor(rand() * 0x7fffff));
    const nans = payloads.flatMap((p) => [0x7f800000 | p, (0xff800000 | p) >>> 0]);
    const got = float32ToHalfBits(floatsOf(nans), dtype);
    expect(Array.from(new Set(got)).sort((a, b) => a - b)).toEqual([QUIET_NAN[dtype], QUIET_NAN[dtype] | 0x8000]);
    for (let i = 0; i < nans.length; i++) expect(got[i]! & 0x8000).toBe(nans[i]! >>> 31 ? 0x8000 : 0);
  });
});

describe('the kernels convert as the helpers do', () => {
  const runtimes: Record<string, LayerNormRuntime> = {};
  beforeAll(async () => {
    runtimes.simd = await init({ backend: 'simd' });
    runtimes.scalar = await init({ backend: 'scalar' });
  });

  describe.each(['simd', 'scalar'])('%s backend', (backend) => {
    it.each(DTYPES)('%s: a constant row’s output is β narrowed by the kernel, for values at every tie', (dtype) => {
      // A constant row normalizes to exactly β, which the kernel rounds to the type: its narrowing,
      // in the vector body and the tails of rows of 1000 and in the wide path of a 70,000-float row.
      const rt = runtimes[backend]!;
      const values = tiesAndNeighbours(finiteValues(dtype)).filter((v) => !Object.is(v, -0));
      for (const d of [1000, 70_000]) {
        const rows = Math.ceil(values.length / d);
        for (let r = 0; r < rows; r++) {
          const beta = new Float32Array(d);
          beta.set(values.slice(r * d, (r + 1) * d));
          const x = float32ToHalfBits(new Float32Array(d).fill(1.5), dtype);
          const y = rt.layerNorm(x, d, { beta, dtype });
          expect(bitDifference(y, float32ToHalfBits(beta, dtype)), `d = ${d}, row ${r}`).toBeNull();
        }
      }
    });

    it.each(DTYPES)('%s: x + 0 through the fused add gives all 65,536 patterns back as the helpers do', (dtype) => {
      // sumOut = x + r with r = +0 widens and narrows each pattern in the kernel: finite values and
      // infinities come back as they were (−0 + 0 is +0), NaNs as the type's quiet NaN.
      const rt = runtimes[backend]!;
      for (const d of [8, 7]) {
        const n = Math.floor(65536 / d) * d;
        const x = ALL.slice(0, n);
        const sumOut = new Uint16Array(n);
        rt.layerNorm(x, d, { residual: new Uint16Array(n), sumOut, dtype });
        const expected = x.map((h) => (h === 0x8000 ? 0 : h));
        const nan = (h: number) => isNaNBits[dtype](h);
        const finite = (a: Uint16Array) => a.map((h) => (nan(h) ? 0 : h));
        expect(bitDifference(finite(sumOut), finite(expected)), `d = ${d}`).toBeNull();
        for (let i = 0; i < n; i++) {
          if (nan(x[i]!) && (sumOut[i]! & 0x7fff) !== QUIET_NAN[dtype]) {
            expect.unreachable(`pattern ${x[i]!.toString(16)} came out ${sumOut[i]!.toString(16)}`);
          }
        }
      }
    });

    it.each(DTYPES)('%s: the stages’ input is the helpers’ widening of every pattern', (dtype) => {
      const rt = runtimes[backend]!;
      const st = rt.layerNormStages(ALL, 65536, 0, { dtype });
      expect(bitDifference(st.input, halfBitsToFloat32(ALL, dtype))).toBeNull();
    });
  });
});
