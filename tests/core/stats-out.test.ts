// Statistics from the same pass: layerNorm(x, d, { mean, rstd }) and rmsNorm(x, d, { rstd }) fill
// caller Float64Arrays (one entry per row) with exactly the float64 values layerNormStats and the
// stages report, and asking for them changes no output bit. Both backends, every width, row counts
// that cross the 4,096-row statistics block and the 65,536-float chunk, wide rows, with a residual
// and for 16-bit activations.
import { beforeAll, describe, expect, it } from 'vitest';
import { float32ToHalfBits, halfBitsToFloat32, init, type LayerNormRuntime } from '../../dist/index.js';
import { bitDifference } from '../helpers/bits.js';
import { gaussian, hardCases, rng } from '../helpers/cases.js';
import { exactStages } from '../kit/stats.mjs';

const SEED = 20261203;
/** [d, rows]: 70,000 rows of 1 (17 blocks of statistics, 2 chunks), 4,097 rows of 16 and of 7 (one
 * row past a block), GPT-2 widths across chunks, and wide rows. */
const SHAPES: [number, number][] = [
  [1, 70_000],
  [7, 4097],
  [16, 4097],
  [8, 9000],
  [9, 300],
  [768, 200],
  [769, 171],
  [70_000, 3],
];

const runtimes: Record<string, LayerNormRuntime> = {};
beforeAll(async () => {
  runtimes.simd = await init({ backend: 'simd' });
  runtimes.scalar = await init({ backend: 'scalar' });
});

function rowsOf(d: number, rows: number, seed: number): Float32Array {
  // Each row with its own offset and scale, so that every row's statistics differ.
  const x = gaussian(rng(seed), rows * d);
  for (let r = 0; r < rows; r++) {
    for (let j = 0; j < d; j++) x[r * d + j] = x[r * d + j]! * (1 + (r % 13)) + (r % 7) * 100 - 300;
  }
  return x;
}

describe.each(['simd', 'scalar'])('%s backend', (backend) => {
  it.each(SHAPES)(
    'layerNorm d = %i, %i rows: mean and rstd are layerNormStats’ own values; the output is unchanged',
    (d, rows) => {
      const rt = runtimes[backend]!;
      const x = rowsOf(d, rows, SEED + d);
      const gamma = gaussian(rng(SEED + 1), d, 1, 0.2),
        beta = gaussian(rng(SEED + 2), d);
      const plain = rt.layerNorm(x, d, { gamma, beta });
      const stats = rt.layerNormStats(x, d, { eps: 1e-5 });
      const mean = new Float64Array(rows).fill(NaN),
        rstd = new Float64Array(rows).fill(NaN);
      const y = rt.layerNorm(x, d, { gamma, beta, mean, rstd });
      expect(bitDifference(y, plain)).toBeNull();
      expect(bitDifference(mean, stats.mean)).toBeNull();
      expect(bitDifference(rstd, stats.rstd)).toBeNull();
      // One of them alone, into a caller's out, in place: the same values.
      const only = new Float64Array(rows);
      const out = new Float32Array(x.length);
      rt.layerNorm(x, d, { gamma, beta, rstd: only, out });
      expect(bitDifference(only, stats.rstd)).toBeNull();
      expect(bitDifference(out, plain)).toBeNull();
      const inPlace = x.slice();
      rt.layerNorm(inPlace, d, { gamma, beta, mean: only, out: inPlace });
      expect(bitDifference(only, stats.mean)).toBeNull();
      expect(bitDifference(inPlace, plain)).toBeNull();
    },
  );

  it.each(SHAPES)(
    'rmsNorm d = %i, %i rows: rstd is the stages’ 1/√(mean(x²) + ε); the output is unchanged',
    (d, rows) => {
      const rt = runtimes[backend]!;
      const x = rowsOf(d, rows, SEED + 3 + d);
      const gamma = gaussian(rng(SEED + 4), d, 1, 0.2);
      const rstd = new Float64Array(rows).fill(NaN);
      const y = rt.rmsNorm(x, d, { gamma, eps: 1e-6, rstd });
      expect(bitDifference(y, rt.rmsNorm(x, d, { gamma, eps: 1e-6 }))).toBeNull();
      for (const row of [0, 1, rows >> 1, rows - 2, rows - 1]) {
        const st = rt.rmsNormStages(x, d, row, { gamma, eps: 1e-6 });
        expect(rstd[row], `row ${row}`).toBe(st.rstd);
        const exact = exactStages(x, d, row, { norm: 'rmsnorm', eps: 1e-6 }).rstd;
        expect(Math.abs(rstd[row]! - exact) / exact, `row ${row}`).toBeLessThan(2 ** -40);
      }
    },
  );

  it('the hard cases: the same float64 statistics as layerNormStats, beyond float32’s range included', () => {
    const rt = runtimes[backend]!;
    for (const c of hardCases()) {
      const rows = c.x.length / c.d;
      const mean = new Float64Array(rows),
        rstd = new Float64Array(rows);
      const y = rt.layerNorm(c.x, c.d, { gamma: c.gamma, beta: c.beta, eps: c.eps, mean, rstd });
      const stats = rt.layerNormStats(c.x, c.d, { eps: c.eps });
      expect(bitDifference(y, rt.layerNorm(c.x, c.d, { gamma: c.gamma, beta: c.beta, eps: c.eps })), c.name).toBeNull();
      expect(bitDifference(mean, stats.mean), `${c.name}: mean`).toBeNull();
      expect(bitDifference(rstd, stats.rstd), `${c.name}: rstd`).toBeNull();
    }
    // Subnormal rows with eps 0: an rstd of 1e40, which float32 cannot hold.
    const rstd = new Float64Array(1);
    rt.layerNorm(new Float32Array([1e-40, -1e-40]), 2, { eps: 0, rstd });
    expect(rstd[0]).toBeCloseTo(1.0000054e40, -34);
  });

  it('with a residual: the statistics of h = x + r (+ bias), as layerNormStats of h gives them', () => {
    const rt = runtimes[backend]!;
    for (const [d, rows] of [
      [7, 4097],
      [768, 200],
      [70_000, 2],
    ] as const) {
      const x = rowsOf(d, rows, SEED + 5),
        r = gaussian(rng(SEED + 6), rows * d, 0, 3),
        bias = gaussian(rng(SEED + 7), d);
      const sumOut = new Float32Array(x.length);
      const mean = new Float64Array(rows),
        rstd = new Float64Array(rows);
      rt.layerNorm(x, d, { residual: r, bias, sumOut, mean, rstd });
      const stats = rt.layerNormStats(sumOut, d);
      expect(bitDifference(mean, stats.mean), `d = ${d}`).toBeNull();
      expect(bitDifference(rstd, stats.rstd), `d = ${d}`).toBeNull();
      const rmsRstd = new Float64Array(rows);
      rt.rmsNorm(x, d, { residual: r, bias, rstd: rmsRstd });
      expect(rmsRstd[rows - 1]).toBe(rt.rmsNormStages(sumOut, d, rows - 1).rstd);
    }
  });

  it('float16 and bfloat16: the statistics of the values the bits hold', () => {
    const rt = runtimes[backend]!;
    for (const dtype of ['float16', 'bfloat16'] as const) {
      for (const [d, rows] of [
        [9, 4097],
        [70_000, 2],
      ] as const) {
        const bits = float32ToHalfBits(rowsOf(d, rows, SEED + 8), dtype);
        const mean = new Float64Array(rows),
          rstd = new Float64Array(rows);
        rt.layerNorm(bits, d, { dtype, mean, rstd });
        const stats = rt.layerNormStats(halfBitsToFloat32(bits, dtype), d);
        expect(bitDifference(mean, stats.mean), `${dtype} d = ${d}`).toBeNull();
        expect(bitDifference(rstd, stats.rstd), `${dtype} d = ${d}`).toBeNull();
        expect(bitDifference(rt.layerNormStats(bits, d, { dtype }).mean, stats.mean)).toBeNull();
      }
    }
  });

  it('zero rows: empty statistics arrays are fine and the result is empty', () => {
    const rt = runtimes[backend]!;
    const y = rt.layerNorm(new Float32Array(0), 4, { mean: new Float64Array(0), rstd: new Float64Array(0) });
    expect(y.length).toBe(0);
    expect(rt.rmsNorm(new Float32Array(0), 4, { rstd: new Float64Array(0) }).length).toBe(0);
  });
});

it('the SIMD and scalar builds report the same statistics bit for bit', () => {
  const { simd, scalar } = runtimes as { simd: LayerNormRuntime; scalar: LayerNormRuntime };
  for (const [d, rows] of SHAPES) {
    const x = rowsOf(d, rows, SEED + 9 + d);
    const a = [new Float64Array(rows), new Float64Array(rows), new Float64Array(rows)];
    const b = [new Float64Array(rows), new Float64Array(rows), new Float64Array(rows)];
    simd.layerNorm(x, d, { mean: a[0], rstd: a[1] });
    scalar.layerNorm(x, d, { mean: b[0], rstd: b[1] });
    simd.rmsNorm(x, d, { rstd: a[2] });
    scalar.rmsNorm(x, d, { rstd: b[2] });
    for (let i = 0; i < 3; i++) expect(bitDifference(a[i]!, b[i]!), `d = ${d}, array ${i}`).toBeNull();
  }
});
