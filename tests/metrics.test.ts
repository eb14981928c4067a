// compareOutputs: the comparison behind `--expect` in the CLI and the page's checks.
import { describe, expect, it } from 'vitest';
import { compareOutputs, ulp32 } from '../web/src/numerics/metrics.js';

const nanWithPayload = new Float32Array(new Uint32Array([0x7fc00123]).buffer)[0]!;

describe('compareOutputs', () => {
  it('matches non-finite values only with the same kind: NaN/NaN, +Inf/+Inf, -Inf/-Inf', () => {
    const same = compareOutputs(
      Float32Array.of(NaN, Infinity, -Infinity, 1),
      Float32Array.of(nanWithPayload, Infinity, -Infinity, 1),
      4,
    );
    expect(same.nonFiniteMismatches).toBe(0);
    expect(same.compared).toBe(1);
    expect(same.differingBits).toBe(1); // the NaN payloads differ; both are NaN

    const pairs: Array<[number, number]> = [
      [NaN, Infinity],
      [NaN, -Infinity],
      [Infinity, -Infinity],
      [-Infinity, Infinity],
      [Infinity, NaN],
      [NaN, 0],
      [2, -Infinity],
    ];
    const y = Float32Array.from(pairs, ([a]) => a);
    const e = Float32Array.from(pairs, ([, b]) => b);
    const c = compareOutputs(y, e, 1);
    expect(c.nonFiniteMismatches).toBe(pairs.length);
    expect(c.compared).toBe(0);
    expect(c.maxAbs).toBe(0);
  });

  it('counts each disagreeing element once and still measures the finite ones', () => {
    const y = Float32Array.of(1, NaN, 3, Infinity, 5.5);
    const e = Float32Array.of(1, -Infinity, 3.25, Infinity, 5.5);
    const c = compareOutputs(y, e, 5);
    expect(c.nonFiniteMismatches).toBe(1);
    expect(c.compared).toBe(3);
    expect(c.maxAbs).toBe(0.25);
    expect(c.worstIndex).toBe(2);
    expect(c.maxScaledUlp).toBe(0.25 / ulp32(3.25));
  });
});
