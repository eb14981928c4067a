// The benchmark's target lines (web/bench/targets.mjs) on samples made up here: a verdict only when
// the measurement decides it. Timing itself is never asserted.
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM module of the benchmark
import { evaluateTargets, pairedRatio, verdict } from '../../web/bench/targets.mjs';
// @ts-expect-error plain ESM module of the benchmark
import { BIAS } from '../../web/bench/forms.mjs';
// @ts-expect-error plain ESM module of the benchmark
import { variantPairs } from '../../web/bench/variant-pairs.mjs';
import { rng } from '../../web/shared/rng.mjs';

const ROUNDS = 13; // the Chromium run's rounds per shape

/** Per-round times (ms) around `center`, ±2% like a quiet machine's. */
function samples(center: number, seed: number, n = ROUNDS): number[] {
  const r = rng(seed);
  return Array.from({ length: n }, () => center * (1 + 0.04 * (r() - 0.5)));
}

function candidate(id: string, s: number[]) {
  const sorted = [...s].sort((a, b) => a - b);
  return { id, median: sorted[sorted.length >> 1], samples: s };
}

/** One [1 × 768] shape with float16 and float32 caller-out candidates. */
function oneRow(f16: number[], f32: number[]) {
  return [
    {
      rows: 1,
      d: 768,
      candidates: [candidate(`lnw-simd:float16:${BIAS}`, f16), candidate(`lnw-simd:out:${BIAS}`, f32)],
    },
  ];
}

interface Target {
  label: string;
  status: string;
  value?: number;
  lo?: number;
  hi?: number;
  text: string;
}

function f16Line(results: object[]): Target {
  const lines = evaluateTargets(results, { ortRefKey: 'ortweb' }) as Target[];
  return lines.find((t) => t.label === '[1×768] float16 in/out vs float32, caller out')!;
}

describe('verdict', () => {
  it('passes or fails only when the whole interval is on one side of the target', () => {
    expect(verdict({ median: 1.2, lo: 1.18, hi: 1.22 }, 1.3, '≤')).toBe('PASS');
    expect(verdict({ median: 1.4, lo: 1.38, hi: 1.42 }, 1.3, '≤')).toBe('FAIL');
    expect(verdict({ median: 1.29, lo: 1.25, hi: 1.33 }, 1.3, '≤')).toBe('UNSURE');
    expect(verdict({ median: 1.31, lo: 1.27, hi: 1.35 }, 1.3, '≤')).toBe('UNSURE');
    expect(verdict({ median: 2.5, lo: 2.4, hi: 2.6 }, 2, '≥')).toBe('PASS');
    expect(verdict({ median: 1.7, lo: 1.6, hi: 1.8 }, 2, '≥')).toBe('FAIL');
    expect(verdict({ median: 2.1, lo: 1.9, hi: 2.2 }, 2, '≥')).toBe('UNSURE');
  });
});

describe('target lines', () => {
  it('pairs the samples round by round', () => {
    const r = pairedRatio(oneRow([2, 4, 6], [1, 2, 3]), 1, 768, `lnw-simd:float16:${BIAS}`, `lnw-simd:out:${BIAS}`);
    expect(r.median).toBe(2);
    expect(r.lo).toBe(2);
    expect(r.hi).toBe(2);
  });

  it("takes a pair's own paired measurement over the main rounds when it has one", () => {
    const results = oneRow([2, 4, 6], [1, 2, 3]) as { paired?: Record<string, number[]> }[];
    results[0].paired = { [`lnw-simd:float16:${BIAS}|lnw-simd:out:${BIAS}`]: [1.25, 1.27, 1.26] };
    const r = pairedRatio(results, 1, 768, `lnw-simd:float16:${BIAS}`, `lnw-simd:out:${BIAS}`);
    expect(r.median).toBe(1.26);
    expect(r.n).toBe(3);
    // The reverse pair was not measured on its own: the main rounds' samples.
    expect(pairedRatio(results, 1, 768, `lnw-simd:out:${BIAS}`, `lnw-simd:float16:${BIAS}`).median).toBe(0.5);
  });

  it('passes a ratio clearly under its target, and shows its interval', () => {
    const t = f16Line(oneRow(samples(1.2, 1), samples(1, 2)));
    expect(t.status).toBe('PASS');
    expect(t.value).toBeGreaterThan(1.1);
    expect(t.value).toBeLessThan(1.3);
    expect(t.hi).toBeLessThanOrEqual(1.3);
    expect(t.text).toMatch(
      /^PASS {4}\[1×768\] float16 in\/out vs float32, caller out: 1\.\d{3}× \(95% 1\.\d{3}× – 1\.\d{3}×; target ≤ 1\.300×\)/,
    );
  });

  it('fails a ratio clearly over its target', () => {
    const t = f16Line(oneRow(samples(1.45, 3), samples(1, 4)));
    expect(t.status).toBe('FAIL');
    expect(t.lo).toBeGreaterThan(1.3);
  });

  it('gives no verdict when a disturbed denominator makes the median pass', () => {
    // float16 at 0.94 µs throughout; float32 at 0.65 µs in 6 rounds and 1.8 µs in 7 (Chromium,
    // a real run's shape): the median ratio reads 0.52x, the undisturbed rounds 1.45x.
    const f32 = [0.65, 1.8, 0.65, 1.8, 1.8, 0.65, 1.8, 0.65, 1.8, 0.65, 1.8, 0.65, 1.8].map((v) => v / 1000);
    const t = f16Line(oneRow(samples(0.94e-3, 5), f32));
    expect(t.value).toBeLessThan(0.6);
    expect(t.hi).toBeGreaterThan(1.3);
    expect(t.status).toBe('UNSURE');
    expect(t.text).toMatch(/^UNSURE {2}\[1×768\] float16/);
  });

  it('says N/A when a candidate was not measured', () => {
    const t = f16Line([{ rows: 1, d: 768, candidates: [candidate(`lnw-simd:out:${BIAS}`, samples(1, 6))] }]);
    expect(t.status).toBe('N/A');
    expect(t.text).toBe('N/A     [1×768] float16 in/out vs float32, caller out: not measured');
  });
});

describe('the variant pairs measured on their own', () => {
  it('are the pairs the norm targets compare at that shape', () => {
    const one = variantPairs(1, 768).map((p: string[]) => p.join(' / '));
    expect(one).toContain(`lnw-simd:float16:${BIAS} / lnw-simd:out:${BIAS}`);
    expect(one).toContain(`lnw-simd:stats:${BIAS} / lnw-simd:out:${BIAS}`);
    expect(one).toHaveLength(5);
    expect(variantPairs(1024, 768)).toHaveLength(8);
    expect(variantPairs(64, 768)).toEqual([]);
  });
});
