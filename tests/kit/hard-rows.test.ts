// The hard-row generators make what they say: the same case from the same seed, and over a few
// hundred seeds every kind of row the oracle and the property tests rely on.
import { describe, expect, it } from 'vitest';
import { exactLayerNorm, F32_MAX } from './exact.mjs';
import { HARD_KINDS, hardCase, splitResidual, stepAway } from './hard-rows.mjs';
import { gaussian, normal, rng } from './random.mjs';

const cases = (kind: (typeof HARD_KINDS)[number], n = 150) =>
  Array.from({ length: n }, (_, seed) => hardCase(seed, { kind, maxD: 1024 }));
const rowsOf = (c: { h: Float32Array; d: number; rows: number }) =>
  Array.from({ length: c.rows }, (_, r) => c.h.subarray(r * c.d, (r + 1) * c.d));
const distinct = (row: Float32Array) => new Set(row).size;

describe('hardCase', () => {
  it('gives the same case for the same seed, and labels it with the seed', () => {
    const a = hardCase(12345),
      b = hardCase(12345);
    expect(a.label).toContain('seed 12345');
    expect(Buffer.from(a.h.buffer).equals(Buffer.from(b.h.buffer))).toBe(true);
    expect([a.kind, a.d, a.rows, a.eps]).toEqual([b.kind, b.d, b.rows, b.eps]);
    expect(hardCase(12346).h).not.toEqual(a.h);
  });

  it('picks every kind, widths around the tiles and odd ones, ε = 0 often, within the size asked', () => {
    const all = Array.from({ length: 400 }, (_, seed) => hardCase(seed, { maxD: 1024, maxElements: 4096 }));
    expect(new Set(all.map((c) => c.kind))).toEqual(new Set(HARD_KINDS));
    const widths = new Set(all.map((c) => c.d));
    for (const d of [1, 7, 8, 9, 768, 769]) expect(widths.has(d), `d = ${d}`).toBe(true);
    expect(all.every((c) => c.d <= 1024 && (c.rows === 1 || c.h.length <= 4096))).toBe(true);
    expect(all.filter((c) => c.eps === 0).length).toBeGreaterThan(80);
    expect(all.some((c) => c.gamma === null) && all.some((c) => c.beta === null)).toBe(true);
  });

  it('near-constant rows: one offset of either sign, the other values one to three steps away', () => {
    let negative = 0,
      oneStep = 0;
    for (const c of cases('near-constant')) {
      for (const row of rowsOf(c)) {
        const values = [...new Set(row)];
        // The offset: the value every other lies within three steps of (with half the row moved,
        // either of the two).
        const within = (offset: number) =>
          values.map((v) => [-3, -2, -1, 0, 1, 2, 3].find((n) => stepAway(offset, n) === v));
        const offset = values.find((o) => within(o).every((n) => n !== undefined));
        expect(offset, `${c.label}: ${values.slice(0, 6)}`).toBeDefined();
        if (offset! < 0) negative++;
        oneStep += within(offset!).filter((n) => n === 1 || n === -1).length;
      }
    }
    expect(negative).toBeGreaterThan(30);
    expect(oneStep).toBeGreaterThan(100);
  });

  it('levels rows hold two to four values; subnormal rows hold subnormals; huge rows reach 1e30 and beyond', () => {
    for (const c of cases('levels')) for (const row of rowsOf(c)) expect(distinct(row)).toBeLessThanOrEqual(4);
    const subnormal = cases('subnormal').flatMap((c) => [...c.h]);
    expect(subnormal.every((v) => Math.abs(v) < 2 ** -120)).toBe(true);
    expect(subnormal.filter((v) => v !== 0 && Math.abs(v) < 2 ** -126).length).toBeGreaterThan(1000);
    expect(Math.max(...cases('huge').map((c) => Math.max(...c.h.map(Math.abs))))).toBeGreaterThan(1e37);
    expect(Math.min(...cases('huge').map((c) => Math.max(...c.h.map(Math.abs))))).toBeGreaterThan(1e29);
  });

  it('gamma-overflow: |γ·x̂| beyond float32 where the exact γ·x̂ + β is finite', () => {
    let reached = 0;
    for (const c of cases('gamma-overflow', 60)) {
      const plain = exactLayerNorm(c.h, c.d, { eps: c.eps });
      const y = exactLayerNorm(c.h, c.d, c);
      for (let j = 0; j < c.d; j++)
        if (Math.abs(c.gamma![j]! * plain[j]!) > F32_MAX && Number.isFinite(y[j]!)) reached++;
    }
    expect(reached).toBeGreaterThan(100);
  });

  it('widths up to 10^6 on request', () => {
    const c = hardCase(3, { kind: 'near-constant', d: 1_000_000 });
    expect([c.d, c.rows, c.h.length]).toEqual([1_000_000, 1, 1_000_000]);
    expect(distinct(c.h)).toBeGreaterThan(1);
  });

  it('refuses a kind it does not know', () => {
    expect(() => hardCase(1, { kind: 'flat' as never })).toThrow(TypeError);
  });
});

describe('splitResidual', () => {
  it('splits a row into x, residual and bias whose float32 sum lands on or beside it', () => {
    const c = hardCase(5, { kind: 'near-constant', d: 64, rows: 3 });
    const { x, residual, bias } = splitResidual(5, c.h, 64);
    for (let i = 0; i < c.h.length; i++) {
      const h = Math.fround(Math.fround(x[i]! + residual[i]!) + (bias ? bias[i % 64]! : 0));
      expect(Math.abs(h - c.h[i]!)).toBeLessThanOrEqual(4 * Math.abs(stepAway(c.h[i]!, 1) - c.h[i]!));
    }
  });
});

describe('the random helpers', () => {
  it('normal samples have mean 0 and variance 1; gaussian scales them', () => {
    const rand = rng(99);
    const n = Array.from({ length: 20000 }, () => normal(rand));
    const mean = n.reduce((a, b) => a + b, 0) / n.length;
    expect(Math.abs(mean)).toBeLessThan(0.03);
    expect(Math.abs(n.reduce((a, b) => a + (b - mean) ** 2, 0) / n.length - 1)).toBeLessThan(0.05);
    const g = gaussian(rng(1), 5, 10, 0);
    expect([...g]).toEqual([10, 10, 10, 10, 10]);
  });
});
