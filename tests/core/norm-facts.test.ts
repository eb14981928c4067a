/**
 * A norm is its facts. Every norm of the table runs through every entry point — its call (fused,
 * with the statistics its facts have), a resident norm, its stages, the reference, a worker and the
 * explainer's numbers — each output held to the exact oracle for its facts (tests/kit/exact.mjs,
 * exactNormOf): within the contract's 6.5 scaled ULP, the reference correctly rounded. The table
 * here has one more row than the package's: a norm the package does not have, added as facts alone
 * (tests/kit/made-up-norm.mjs: centred, its moment divided by 1, with a bias — no kernel, stage
 * type, reference or code of its own). A row added to web/src/norms.ts is tested here as it is.
 */
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MADE_UP } from '../kit/made-up-norm.mjs';
import { init, NORM_KINDS, NORMS, normReference, type NormKind } from '../../dist/index.js';
import { explainRow } from '../../dist/explainer/compute.js';
import { initWorker } from '../../dist/worker/index.js';
import { compareToExact, exactNormOf, residualSum } from '../kit/exact.mjs';
import { exactStats } from '../kit/stats.mjs';
import { bitDifference } from '../helpers/bits.js';
import { gaussian, gpt2Like, rng } from '../helpers/cases.js';

const CONTRACT = 6.5;
const D = 768;
const ROWS = 41;
const x = gpt2Like(rng(71), ROWS, D);
const r = gaussian(rng(72), ROWS * D, 0, 2);
const gamma = gaussian(rng(73), D, 1, 0.3);
const beta = gaussian(rng(74), D, 0, 0.2);
const bias = gaussian(rng(75), D, 0, 0.1);
const eps = 1e-5;

type Methods = Record<string, (...args: unknown[]) => unknown>;
type Resident = { forward(x: Float32Array): Float32Array; dispose(): void };
type AsyncResident = { forward(x: Float32Array): Promise<Float32Array>; dispose(): void };

/** A norm of the table: its methods' names, its options (β where it has one) and its exact answer. */
function normOf(kind: NormKind) {
  const spec = NORMS[kind];
  const b = spec.bias ? beta : null;
  const options = spec.bias ? { gamma, beta, eps } : { gamma, eps };
  const exact = exactNormOf(spec, x, D, options);
  const within = (y: Float32Array, want = exact) => compareToExact(y, want, b, D).maxSulp;
  return { spec, api: spec.api, options, exact, within };
}

it('the table has the made-up row, after the package’s own', () => {
  expect(NORM_KINDS.at(-1)).toBe(MADE_UP);
  expect(NORM_KINDS.length).toBeGreaterThan(2);
});

describe.each(NORM_KINDS.map((k) => [k]))('%s', (kind) => {
  const { spec, api, options, exact, within } = normOf(kind);

  describe.each(['simd', 'scalar'] as const)('on the %s backend', (backend) => {
    let rt: Methods;
    beforeAll(async () => {
      rt = (await init({ backend })) as unknown as Methods;
    });

    it('its call is within the contract of the exact answer for its facts', () => {
      expect(within(rt[api.call]!(x, D, options) as Float32Array)).toBeLessThanOrEqual(CONTRACT);
    });

    it('a fused call normalizes (x + r) + bias, and writes the statistics its facts have', () => {
      const mean = new Float64Array(ROWS),
        rstd = new Float64Array(ROWS);
      const stats = spec.centred ? { mean, rstd } : { rstd };
      const y = rt[api.call]!(x, D, { ...options, residual: r, bias, ...stats }) as Float32Array;
      const h = residualSum(x, r, bias, D);
      expect(within(y, exactNormOf(spec, h, D, options))).toBeLessThanOrEqual(CONTRACT);
      // The statistics within float64's error: the mean within d·2^-52 of the row's magnitude, rstd
      // (1 / √(moment + ε), the moment its facts define) within 2^-40 relative.
      const want = exactStats(h, D, { norm: spec, eps });
      for (let row = 0; row < ROWS; row++) {
        const magnitude = Math.max(...Array.from(h.subarray(row * D, (row + 1) * D), Math.abs));
        if (spec.centred) expect(Math.abs(mean[row]! - want.mean![row]!)).toBeLessThanOrEqual(D * 2 ** -52 * magnitude);
        expect(Math.abs(rstd[row]! / want.rstd![row]! - 1)).toBeLessThanOrEqual(2 ** -40);
      }
    });

    it('a resident norm forwards the call bit for bit', () => {
      const norm = rt[api.create]!(D, options) as Resident;
      expect(bitDifference(norm.forward(x), rt[api.call]!(x, D, options) as Float32Array)).toBeNull();
      norm.dispose();
    });

    it('its stages name its moment from its facts and end in the call output', () => {
      const y = rt[api.call]!(x, D, options) as Float32Array;
      const s = rt[api.stages]!(x, D, 3, options) as Record<string, unknown>;
      const want = exactStats(x.subarray(3 * D, 4 * D), D, { norm: spec, eps });
      const moment = Object.keys(want).find((k) => k !== 'mean' && k !== 'rstd')!;
      expect(Math.abs((s[moment] as number) / want[moment]![0]! - 1)).toBeLessThan(1e-12);
      expect(Math.abs((s.rstd as number) / want.rstd![0]! - 1)).toBeLessThanOrEqual(2 ** -40);
      expect(['mean' in s, 'centered' in s, 'scaled' in s]).toEqual([spec.centred, spec.centred, spec.bias]);
      expect(bitDifference(s.output as Float32Array, y.subarray(3 * D, 4 * D))).toBeNull();
    });
  });

  it('its reference is the exact answer for its facts, correctly rounded', () => {
    expect(bitDifference(normReference(kind, x, D, options), exact)).toBeNull();
  });

  it('its weights run in its form in the explainer: its own stages, and its output among the forms', async () => {
    const rt = await init();
    const e = explainRow(rt, x, D, 4, { ...options, norm: kind });
    const own = (rt as unknown as Methods)[api.stages]!(x, D, 4, options) as Record<string, unknown>;
    expect(Object.keys(e.stages).sort()).toEqual(Object.keys(own).sort());
    expect(bitDifference(e.stages.output, own.output as Float32Array)).toBeNull();
    expect(within(e.stages.output, exact.subarray(4 * D, 5 * D))).toBeLessThanOrEqual(CONTRACT);
  });
});

describe('every norm in a worker', () => {
  let w: Methods & { dispose(): void };
  let rt: Methods;
  beforeAll(async () => {
    // The package's worker script with the same table (the made-up row added before it loads).
    const script = new URL('../worker/fixtures/made-up-norm-worker.mjs', import.meta.url);
    w = (await initWorker({ worker: () => new Worker(script) })) as unknown as Methods & { dispose(): void };
    rt = (await init()) as unknown as Methods;
  });
  afterAll(() => w.dispose());

  it.each(NORM_KINDS.map((k) => [k]))(
    '%s: its call, resident norm and stages resolve to the main thread’s bits',
    async (kind) => {
      const { api, options } = normOf(kind);
      const y = rt[api.call]!(x, D, options) as Float32Array;
      expect(bitDifference((await w[api.call]!(x.slice(), D, options)) as Float32Array, y)).toBeNull();
      const norm = (await w[api.create]!(D, options)) as AsyncResident;
      expect(bitDifference(await norm.forward(x.slice()), y)).toBeNull();
      norm.dispose();
      const s = (await w[api.stages]!(x, D, 5, options)) as Record<string, unknown>;
      expect(bitDifference(s.output as Float32Array, y.subarray(5 * D, 6 * D))).toBeNull();
    },
  );
});

describe('the made-up norm', () => {
  it('is not any of the package’s: its divisor 1 makes every x̂ √d times smaller than a LayerNorm’s', async () => {
    const rt = (await init()) as unknown as Methods;
    const { api, options } = normOf(MADE_UP as NormKind);
    const y = rt[api.call]!(x, D, options) as Float32Array;
    for (const kind of NORM_KINDS.filter((k) => k !== MADE_UP)) {
      const other = normOf(kind);
      expect(bitDifference(y, rt[other.api.call]!(x, D, other.options) as Float32Array)).not.toBeNull();
    }
  });

  it('has its variant beside the package’s forms in the explainer', async () => {
    const rt = await init();
    const { options, exact, within } = normOf(MADE_UP as NormKind);
    const e = explainRow(rt, x, D, 4, { ...options, norm: MADE_UP as NormKind });
    const variants = e.variants as unknown as Record<string, Float32Array | null>;
    expect(bitDifference(variants[MADE_UP]!, e.stages.output)).toBeNull();
    expect(within(variants[MADE_UP]!, exact.subarray(4 * D, 5 * D))).toBeLessThanOrEqual(CONTRACT);
  });
});
