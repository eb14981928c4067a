// The speed gate's decision (web/bench/ab/paired.mjs), on ratios made up here: what it lets
// through and what it stops. Timing itself is never asserted; the gate's real runs are in
// web/bench/README.md ("Same-run A/B and the gate"), including one that fails.
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM module of the benchmark
import { gate, summarize } from '../../web/bench/ab/paired.mjs';
import { rng } from '../../web/shared/rng.mjs';

const LIMIT = 1.05;

/** n per-round ratios around `center`, with a relative spread like this machine's (IQR ~±3%). */
function ratios(center: number, n: number, seed: number, spread = 0.045): number[] {
  const r = rng(seed);
  return Array.from({ length: n }, () => center * (1 + spread * (r() + r() + r() - 1.5)));
}

interface Row {
  id: string;
  verdict: string;
  median?: number;
  first?: { median: number };
  remeasured?: { median: number };
  confirmed?: { median: number };
}

async function judge(rows: object[], again: Record<string, number[]> = {}) {
  const asked: string[][] = [];
  const res = (await gate(
    rows,
    async (ids: string[]) => {
      asked.push(ids);
      return Object.fromEntries(ids.map((id) => [id, again[id]]));
    },
    LIMIT,
  )) as { rows: Row[]; failed: boolean };
  return { ...res, asked };
}

describe('summarize', () => {
  it('gives the median, the quartiles and the order-statistic 95% interval of the median', () => {
    const s = summarize(Array.from({ length: 31 }, (_, i) => 1 + (i - 15) / 100));
    expect(s.n).toBe(31);
    expect(s.median).toBeCloseTo(1, 12);
    expect(s.q1).toBeCloseTo(0.925, 12);
    expect(s.q3).toBeCloseTo(1.075, 12);
    // For 31 values: the 10th and 22nd smallest.
    expect(s.lo).toBeCloseTo(0.94, 12);
    expect(s.hi).toBeCloseTo(1.06, 12);
  });
});

describe('the gate', () => {
  it('passes unchanged speed without measuring again', async () => {
    const { rows, failed, asked } = await judge([{ id: 'a', ratios: ratios(1.0, 84, 1) }]);
    expect(failed).toBe(false);
    expect(asked).toEqual([]);
    expect(rows[0].verdict).toBe('pass');
  });

  it('fails a call 8% slower, after measuring it again and a third time', async () => {
    const { rows, failed, asked } = await judge([{ id: 'a', ratios: ratios(1.08, 84, 2) }], {
      a: ratios(1.08, 168, 3),
    });
    expect(asked).toEqual([['a'], ['a']]);
    expect(rows[0].confirmed!.median).toBeGreaterThan(LIMIT);
    expect(failed).toBe(true);
    expect(rows[0].verdict).toBe('fail');
    expect(rows[0].median).toBeGreaterThan(LIMIT);
  });

  it('fails a call 6% slower', async () => {
    const { failed } = await judge([{ id: 'a', ratios: ratios(1.06, 84, 4) }], { a: ratios(1.06, 168, 5) });
    expect(failed).toBe(true);
  });

  it('passes a call whose first measurement a neighbour spoiled, when the second is clean', async () => {
    const spoiled = [...ratios(1.0, 42, 6), ...ratios(1.12, 42, 7)];
    const { rows, failed, asked } = await judge([{ id: 'a', ratios: spoiled }], { a: ratios(1.0, 168, 8) });
    expect(asked).toEqual([['a']]);
    expect(failed).toBe(false);
    expect(rows[0].verdict).toBe('pass');
    expect(rows[0].first!.median).toBeGreaterThan(rows[0].remeasured!.median);
  });

  it('judges every row on its own and measures again only the suspect ones', async () => {
    const { rows, failed, asked } = await judge(
      [
        { id: 'fast', ratios: ratios(0.9, 84, 9) },
        { id: 'slow', ratios: ratios(1.1, 84, 10) },
      ],
      { slow: ratios(1.1, 168, 11) },
    );
    expect(asked).toEqual([['slow'], ['slow']]);
    expect(failed).toBe(true);
    expect(rows.map((r) => [r.id, r.verdict])).toEqual([
      ['fast', 'pass'],
      ['slow', 'fail'],
    ]);
  });

  it('passes a call over the limit twice on a loaded machine when the third measurement is clean', async () => {
    // CI's run right after the fuzzers: an unchanged build's one-row call at 1.054x, then 1.103x.
    const answers = [ratios(1.103, 168, 12), ratios(1.01, 168, 13)];
    const asked: string[][] = [];
    const res = (await gate(
      [{ id: 'a', ratios: ratios(1.054, 84, 14) }],
      async (ids: string[]) => {
        asked.push(ids);
        return { a: answers[asked.length - 1] };
      },
      LIMIT,
    )) as { rows: Row[]; failed: boolean };
    expect(asked).toEqual([['a'], ['a']]);
    expect(res.rows[0].median).toBeGreaterThan(LIMIT);
    expect(res.rows[0].confirmed!.median).toBeLessThan(LIMIT);
    expect(res.rows[0].verdict).toBe('pass');
    expect(res.failed).toBe(false);
  });

  it('fails a call HEAD lacks and shows one the baseline lacks as skipped', async () => {
    const { rows, failed } = await judge([
      { id: 'gone', missing: 'head', why: 'no rmsNorm' },
      { id: 'new', missing: 'ref', why: 'no rmsNorm' },
    ]);
    expect(failed).toBe(true);
    expect(rows.map((r) => r.verdict)).toEqual(['fail', 'skipped']);
  });
});
