/**
 * The calls every runtime answers alike (tests/kit/calls.mjs), on the main thread: on both
 * backends, each output against the exact oracle — a float32 output within the contract (6.5 scaled
 * ULP, NaN/±Infinity where the exact answer has them), a 16-bit one within 1 ulp of the exact
 * answer rounded to its type, sumOut exactly the fused sum, the statistics within float64's error
 * (the mean within d·2^-52 of the row's magnitude, the variance within 1e-12 and rstd within 2^-40
 * relative) — a resident norm's properties as created, and the SIMD and scalar builds bit for bit
 * alike. tests/worker/calls.test.ts runs the same table through initWorker().
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { init, type LayerNormRuntime } from '../../dist/index.js';
import { CALLS, inputs, type CallRecord, type CallSpec } from '../kit/calls.mjs';
import { contractViolation } from '../kit/contract.mjs';
import { residualSum } from '../kit/exact.mjs';
import { bfloat16Bits, bfloat16Values, float16Bits, float16Values } from '../kit/halves.mjs';
import { exactReference } from '../kit/stats.mjs';
import { recordDifference } from '../helpers/bits.js';

const runtimes: Record<string, LayerNormRuntime> = {};
const records: Record<string, CallRecord[]> = { simd: [], scalar: [] };
beforeAll(async () => {
  runtimes.simd = await init({ backend: 'simd' });
  runtimes.scalar = await init({ backend: 'scalar' });
});

type Half = 'float16' | 'bfloat16';
const round = (values: ArrayLike<number>, dtype: Half) =>
  dtype === 'float16' ? float16Bits(values) : bfloat16Bits(values);
const valuesOf = (bits: Uint16Array, dtype: Half) => (dtype === 'float16' ? float16Values(bits) : bfloat16Values(bits));

/** What the call normalizes: x (as its 16-bit type holds it), plus the residual and its bias. */
function normalized(spec: CallSpec): { h: Float32Array; sum: Float32Array | Uint16Array | null } {
  const half = spec.dtype === 'float32' ? null : spec.dtype;
  const held = (v: Float32Array) => (half ? valuesOf(round(v, half), half) : v);
  if (!spec.residual) return { h: held(spec.x), sum: null };
  const sum32 = residualSum(held(spec.x), held(spec.residual), spec.bias, spec.d);
  if (!half) return { h: sum32, sum: sum32 };
  // The sum is rounded once more to the activations' type, and that is what is normalized.
  const bits = round(sum32, half);
  return { h: valuesOf(bits, half), sum: bits };
}

/** The position of a 16-bit pattern on the number line. */
const ordinal = (h: number) => (h & 0x8000 ? -(h & 0x7fff) : h);

/** Every output of a call's record against the exact oracle, as the file's comment says. */
function judge(record: CallRecord, spec: CallSpec, where: string) {
  const { h, sum } = normalized(spec);
  const exact = exactReference(h, spec.d, {
    norm: spec.norm as 'layernorm',
    gamma: spec.gamma,
    beta: spec.beta,
    eps: spec.eps,
  });
  const rows = spec.row === undefined ? [...Array(h.length / spec.d).keys()] : [spec.row];
  const rowOf = (a: ArrayLike<number>, r: number) => Array.prototype.slice.call(a, r * spec.d, (r + 1) * spec.d);
  const yExact = Float32Array.from(rows.flatMap((r) => rowOf(exact.y, r)));
  const judged: string[] = [];
  if (record.y) {
    judged.push('y');
    if (spec.dtype === 'float32') {
      expect(contractViolation(record.y as Float32Array, yExact, spec.beta, spec.d), `${where}: y`).toBeNull();
    } else {
      const expected = round(yExact, spec.dtype);
      const y = record.y as Uint16Array;
      expect(y).toBeInstanceOf(Uint16Array);
      const worst = Math.max(...Array.from(y, (b, i) => Math.abs(ordinal(b) - ordinal(expected[i]!))));
      expect(worst, `${where}: y in ulps of ${spec.dtype} from the exact answer`).toBeLessThanOrEqual(1);
    }
  }
  if (record.sumOut) {
    judged.push('sumOut');
    expect(recordDifference({ sumOut: record.sumOut }, { sumOut: sum }), `${where}: sumOut`).toBeNull();
  }
  rows.forEach((key, i) => {
    const row = Float32Array.from(rowOf(h, key));
    const magnitude = Math.max(...row.map(Math.abs));
    if (record.mean) {
      const error = Math.abs((record.mean as Float64Array)[i]! - (exact as { mean: Float64Array }).mean[key]!);
      expect(error, `${where}: mean of row ${key}`).toBeLessThanOrEqual(spec.d * 2 ** -52 * magnitude);
    }
    if (record.variance) {
      const v = (exact as { variance: Float64Array }).variance[key]!;
      expect(Math.abs((record.variance as Float64Array)[i]! - v) / v, `${where}: variance of row ${key}`).toBeLessThan(
        1e-12,
      );
    }
    if (record.rstd) {
      const s = exact.rstd[key]!;
      expect(Math.abs((record.rstd as Float64Array)[i]! - s) / s, `${where}: rstd of row ${key}`).toBeLessThanOrEqual(
        2 ** -40,
      );
    }
  });
  if (record.props) expect(record.props, `${where}: the norm's properties`).toEqual(spec.props);
  // Every case is judged on its output or its statistics.
  expect(judged.length + (record.mean ? 1 : 0) + (record.rstd ? 1 : 0), where).toBeGreaterThan(0);
}

describe.each(['simd', 'scalar'])('%s backend', (backend) => {
  it.each(CALLS.map((c, i) => [c.name, i] as const))('%s: within the contract of the exact oracle', async (_, i) => {
    const c = CALLS[i]!;
    const record = await c.run(runtimes[backend], inputs());
    records[backend]![i] = record;
    judge(record, c.spec, `${backend}: ${c.name}`);
  });
});

it('the SIMD and scalar builds answer every call bit for bit alike', () => {
  for (const backend of ['simd', 'scalar']) expect(Object.keys(records[backend]!).length).toBe(CALLS.length);
  CALLS.forEach((c, i) => {
    expect(recordDifference(records.simd![i]!, records.scalar![i]!), c.name).toBeNull();
  });
});
