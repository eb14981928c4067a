// RMSNorm, y = γ ⊙ x / √(mean(x²) + ε), on both wasm backends against the correctly rounded reference
// (rmsNormReference): the hard cases of the shared vector files within 6.5 scaled ULP and never NaN
// for a finite row, many widths (around the 8-wide SIMD tile, and wider than the 65,536-float
// chunk) and row counts that cross chunk boundaries, in place and into a caller's array, its
// stages and its resident form; and the SIMD and scalar builds bit-identical throughout.
import { beforeAll, describe, expect, it } from 'vitest';
import { compareOutputs, init, rmsNormReference, ulp32, type LayerNormRuntime } from '../../dist/index.js';
import { bitDifference } from '../helpers/bits.js';
import { gaussian, gpt2Like, hardCases, rng, rowsFor, WIDTHS } from '../helpers/cases.js';
import { exactStages } from '../kit/stats.mjs';

const SEED = 20261201;

const runtimes: Record<string, LayerNormRuntime> = {};
beforeAll(async () => {
  runtimes.simd = await init({ backend: 'simd' });
  runtimes.scalar = await init({ backend: 'scalar' });
});

/** Whether every value of every finite input row comes out finite. */
function finiteRowsStayFinite(x: Float32Array, y: Float32Array, d: number): boolean {
  for (let base = 0; base < x.length; base += d) {
    const row = x.subarray(base, base + d);
    if (row.every(Number.isFinite) && !y.subarray(base, base + d).every(Number.isFinite)) return false;
  }
  return true;
}

describe.each(['simd', 'scalar'])('%s backend', (backend) => {
  it(`meets the contract on every hard case: ≤ 6.5 scaled ULP, never NaN for a finite row (seed ${SEED})`, () => {
    const rt = runtimes[backend]!;
    for (const c of hardCases()) {
      const options = { gamma: c.gamma, eps: c.eps };
      const y = rt.rmsNorm(c.x, c.d, options);
      const ref = rmsNormReference(c.x, c.d, options);
      const cmp = compareOutputs(y, ref, c.d);
      expect(cmp.nonFiniteMismatches, `${c.name}: NaN/Inf pattern`).toBe(0);
      expect(cmp.maxScaledUlp, `${c.name}: scaled ULP error`).toBeLessThanOrEqual(4);
      expect(finiteRowsStayFinite(c.x, y, c.d), `${c.name}: a finite row came out NaN/Inf`).toBe(true);
    }
  });

  it.each(WIDTHS)('d = %i: within 6.5 scaled ULP of the oracle, into a new array, a caller out and in place', (d) => {
    const rt = runtimes[backend]!;
    const rows = rowsFor(d);
    const x = gaussian(rng(SEED + d), rows * d, 0.5, 3);
    const gamma = gaussian(rng(SEED + d + 1), d, 1, 0.2);
    for (const options of [{ gamma }, {}, { gamma, eps: 0.1 }, { eps: 0 }]) {
      const y = rt.rmsNorm(x, d, options);
      const cmp = compareOutputs(y, rmsNormReference(x, d, options), d);
      expect(cmp.compared).toBe(x.length);
      expect(cmp.maxScaledUlp).toBeLessThanOrEqual(4);
      const out = new Float32Array(x.length);
      expect(rt.rmsNorm(x, d, { ...options, out })).toBe(out);
      expect(bitDifference(out, y)).toBeNull();
      const inPlace = x.slice();
      expect(rt.rmsNorm(inPlace, d, { ...options, out: inPlace })).toBe(inPlace);
      expect(bitDifference(inPlace, y)).toBeNull();
    }
  });

  it('an out that partly overlaps x gives what separate arrays give', () => {
    const rt = runtimes[backend]!;
    const d = 16,
      rows = 10_000; // several chunks: a chunk written back must not overwrite rows not yet read
    const buffer = new Float32Array((rows + 1) * d);
    buffer.set(gaussian(rng(SEED + 2), rows * d, -1, 2));
    const x = buffer.subarray(0, rows * d);
    const expected = rt.rmsNorm(x.slice(), d);
    rt.rmsNorm(x, d, { out: buffer.subarray(d) });
    expect(bitDifference(buffer.subarray(d), expected)).toBeNull();
  });

  it('a zero row comes out zeros (not NaN), with eps 0 too; a row with NaN or Inf comes out NaN alone', () => {
    const rt = runtimes[backend]!;
    const d = 9;
    const gamma = gaussian(rng(SEED + 3), d, 1, 0.5);
    for (const eps of [0, 1e-5]) {
      expect(Array.from(rt.rmsNorm(new Float32Array(2 * d), d, { gamma, eps }))).toEqual(new Array(2 * d).fill(0));
    }
    const x = gaussian(rng(SEED + 4), 4 * d);
    const clean = rt.rmsNorm(x, d);
    x[d + 3] = NaN;
    x[2 * d + 8] = Infinity;
    const y = rt.rmsNorm(x, d);
    expect(Array.from(y.subarray(d, 3 * d)).every(Number.isNaN)).toBe(true);
    expect(bitDifference(y.subarray(0, d), clean.subarray(0, d))).toBeNull();
    expect(bitDifference(y.subarray(3 * d), clean.subarray(3 * d))).toBeNull();
  });

  it('handles what float32 squares cannot: rows near 3e38 and of subnormals with eps 0, finite and accurate', () => {
    const rt = runtimes[backend]!;
    const d = 33;
    for (const scale of [3e38, 1e-40, 1e-20]) {
      const x = gaussian(rng(SEED + 5), 2 * d).map((v) => Math.max(-1, Math.min(1, v / 3)) * scale);
      const y = rt.rmsNorm(x, d, { eps: 0 });
      expect(y.every(Number.isFinite), `scale ${scale}`).toBe(true);
      expect(compareOutputs(y, rmsNormReference(x, d, { eps: 0 }), d).maxScaledUlp).toBeLessThanOrEqual(4);
    }
  });

  it('rmsNormStages: the kernel’s stages of a row, each within its bound of the exact value, ending in rmsNorm’s output', () => {
    const rt = runtimes[backend]!;
    for (const c of hardCases()) {
      const options = { gamma: c.gamma, eps: c.eps };
      const y = rt.rmsNorm(c.x, c.d, options);
      const rows = c.x.length / c.d;
      const rstd = new Float64Array(rows);
      rt.rmsNorm(c.x, c.d, { ...options, rstd });
      for (let row = 0; row < rows; row++) {
        const where = `${c.name}, row ${row}`;
        const st = rt.rmsNormStages(c.x, c.d, row, options);
        const input = c.x.subarray(row * c.d, (row + 1) * c.d);
        expect([st.row, st.d, st.eps, st.dtype]).toEqual([row, c.d, c.eps, 'float32']);
        expect(bitDifference(st.input, input), where).toBeNull();
        expect(bitDifference(st.output, y.subarray(row * c.d, (row + 1) * c.d)), where).toBeNull();
        expect(st.rstd, `${where}: rstd is the one the call reports`).toBe(rstd[row]);
        expect(st.residual).toBeUndefined();
        expect(st.sum).toBeUndefined();
        if (!input.every(Number.isFinite)) {
          expect(Array.from(st.normalized).every(Number.isNaN), where).toBe(true);
          continue;
        }
        // The exact values (the test kit's oracle): mean(x²), 1/√(mean(x²) + ε) and x̂.
        const e = exactStages(c.x, c.d, row, { norm: 'rmsnorm', gamma: c.gamma, eps: c.eps });
        if (!Number.isFinite(e.rstd) || e.meanSquare === 0) continue;
        expect(Math.abs(st.meanSquare - e.meanSquare) / e.meanSquare, `${where}: mean(x²)`).toBeLessThan(1e-12);
        expect(Math.abs(st.rstd - e.rstd) / e.rstd, `${where}: rstd`).toBeLessThan(2 ** -40);
        // x̂ = x · rstd takes two float32 roundings (rstd, then the product): at most 2 spacings.
        let worst = 0;
        for (let j = 0; j < c.d; j++) {
          const exact = e.normalized[j]!;
          if (exact !== 0) worst = Math.max(worst, Math.abs(st.normalized[j]! - exact) / ulp32(Math.abs(exact)));
        }
        expect(worst, `${where}: x̂`).toBeLessThanOrEqual(2);
      }
    }
  });

  it('createRmsNorm: forward and forwardTensor give rmsNorm’s bits, for narrow and wide rows', () => {
    const rt = runtimes[backend]!;
    for (const d of [768, 70_000]) {
      const x = gpt2Like(rng(SEED + 6), 3, d);
      const gamma = gaussian(rng(SEED + 7), d, 1, 0.2);
      const expected = rt.rmsNorm(x, d, { gamma, eps: 1e-6 });
      using norm = rt.createRmsNorm(d, { gamma, eps: 1e-6 });
      expect([norm.norm, norm.d, norm.eps, norm.dtype, norm.hasGamma, norm.hasBeta]).toEqual([
        'rmsnorm',
        d,
        1e-6,
        'float32',
        true,
        false,
      ]);
      expect(bitDifference(norm.forward(x), expected)).toBeNull();
      const out = new Float32Array(x.length);
      expect(norm.forward(x, out)).toBe(out);
      expect(bitDifference(out, expected)).toBeNull();
      using input = rt.allocate(3, d);
      using output = rt.allocate(3, d);
      input.set(x);
      norm.forwardTensor(input, output);
      expect(bitDifference(output.toArray(), expected)).toBeNull();
      norm.forwardTensor(input, input);
      expect(bitDifference(input.toArray(), expected)).toBeNull();
    }
    using plain = rt.createRmsNorm(5);
    expect([plain.hasGamma, plain.eps]).toEqual([false, 1e-5]);
  });
});

it('the SIMD and scalar builds are bit-identical: outputs, rstd and stages, on the hard cases and every width', () => {
  const cases = hardCases().map((c) => ({ name: c.name, d: c.d, eps: c.eps, x: c.x, gamma: c.gamma }));
  for (const d of WIDTHS) {
    const x = gpt2Like(rng(SEED + 8 + d), Math.min(rowsFor(d), 200), d);
    cases.push({ name: `gpt2-like d = ${d}`, d, eps: 1e-5, x, gamma: gaussian(rng(d), d, 1, 0.2) });
  }
  const { simd, scalar } = runtimes as { simd: LayerNormRuntime; scalar: LayerNormRuntime };
  for (const c of cases) {
    const rows = c.x.length / c.d;
    const options = { gamma: c.gamma, eps: c.eps };
    const [rs, rc] = [new Float64Array(rows), new Float64Array(rows)];
    expect(
      bitDifference(
        simd.rmsNorm(c.x, c.d, { ...options, rstd: rs }),
        scalar.rmsNorm(c.x, c.d, { ...options, rstd: rc }),
      ),
      c.name,
    ).toBeNull();
    expect(bitDifference(rs, rc), `${c.name}: rstd`).toBeNull();
    for (const row of [0, rows - 1]) {
      const a = simd.rmsNormStages(c.x, c.d, row, options),
        b = scalar.rmsNormStages(c.x, c.d, row, options);
      expect([a.meanSquare, a.rstd], `${c.name} row ${row}`).toEqual([b.meanSquare, b.rstd]);
      for (const k of ['normalized', 'output'] as const)
        expect(bitDifference(a[k], b[k]), `${c.name} row ${row} ${k}`).toBeNull();
    }
  }
});
