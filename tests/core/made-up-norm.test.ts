/**
 * A norm is its facts: a norm the package does not have, added to its table as one row of facts
 * (tests/kit/made-up-norm.mjs: centred, moment divided by 1, with a bias — no kernel, stage type,
 * reference or code of its own), runs through every entry point, on the main thread and in a
 * worker, and in the explainer's numbers, each output held to the exact oracle for those facts (tests/kit/exact.mjs, exactNormOf):
 * within the contract's 6.5 scaled ULP, and the package's reference correctly rounded.
 */
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MADE_UP, MADE_UP_FACTS } from '../kit/made-up-norm.mjs';
import { explainRow, init, NORMS, normReference, type LayerNormRuntime } from '../../dist/index.js';
import { initWorker } from '../../dist/worker/index.js';
import { compareToExact, exactNormOf, residualSum } from '../kit/exact.mjs';
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
const api = NORMS[MADE_UP as keyof typeof NORMS].api;

type Methods = Record<string, (...args: unknown[]) => unknown>;
type Resident = { forward(x: Float32Array): Float32Array; dispose(): void };
type AsyncResident = { forward(x: Float32Array): Promise<Float32Array>; dispose(): void };

const exact = exactNormOf(MADE_UP_FACTS, x, D, { gamma, beta, eps });
const withinContract = (y: Float32Array, want = exact) => compareToExact(y, want, beta, D).maxSulp;

describe.each(['simd', 'scalar'] as const)('the made-up norm on the %s backend', (backend) => {
  let rt: Methods;
  beforeAll(async () => {
    rt = (await init({ backend })) as unknown as Methods;
  });

  it('its call is within the contract of the exact answer for its facts', () => {
    const y = rt[api.call]!(x, D, { gamma, beta, eps }) as Float32Array;
    expect(withinContract(y)).toBeLessThanOrEqual(CONTRACT);
    // Not a LayerNorm: the divisor 1 makes every x̂ √d times smaller.
    const layerNorm = rt.layerNorm!(x, D, { gamma, beta, eps }) as Float32Array;
    expect(bitDifference(y, layerNorm)).not.toBeNull();
  });

  it('a fused call normalizes (x + r) + bias, and writes the statistics its facts have', () => {
    const mean = new Float64Array(ROWS),
      rstd = new Float64Array(ROWS);
    const y = rt[api.call]!(x, D, { gamma, beta, eps, residual: r, bias, mean, rstd }) as Float32Array;
    const h = residualSum(x, r, bias, D);
    expect(withinContract(y, exactNormOf(MADE_UP_FACTS, h, D, { gamma, beta, eps }))).toBeLessThanOrEqual(CONTRACT);
    for (let row = 0; row < ROWS; row++) {
      const values = Array.from(h.subarray(row * D, (row + 1) * D));
      const mu = values.reduce((a, v) => a + v, 0) / D;
      const squares = values.reduce((a, v) => a + (v - mu) ** 2, 0);
      expect(mean[row]).toBeCloseTo(mu, 10);
      expect(Math.abs(rstd[row]! * Math.sqrt(squares + eps) - 1)).toBeLessThan(1e-12);
    }
  });

  it('a resident norm forwards the call bit for bit', () => {
    const norm = rt[api.create]!(D, { gamma, beta, eps }) as Resident;
    const y = rt[api.call]!(x, D, { gamma, beta, eps }) as Float32Array;
    expect(bitDifference(norm.forward(x), y)).toBeNull();
    norm.dispose();
  });

  it('its stages name its moment from its facts and end in the call output', () => {
    const y = rt[api.call]!(x, D, { gamma, beta, eps }) as Float32Array;
    const s = rt[api.stages]!(x, D, 3, { gamma, beta, eps }) as Record<string, unknown>;
    expect(Object.keys(s)).toEqual(expect.arrayContaining(['mean', 'centredSumOfSquares', 'centered', 'scaled']));
    expect(s).not.toHaveProperty('variance');
    const row = Array.from(x.subarray(3 * D, 4 * D));
    const mu = row.reduce((a, v) => a + v, 0) / D;
    const squares = row.reduce((a, v) => a + (v - mu) ** 2, 0);
    expect(Math.abs((s.centredSumOfSquares as number) / squares - 1)).toBeLessThan(1e-12);
    expect(bitDifference(s.output as Float32Array, y.subarray(3 * D, 4 * D))).toBeNull();
  });
});

describe('the made-up norm through the reference', () => {
  it('is the exact answer for its facts, correctly rounded', () => {
    const y = normReference(MADE_UP as 'layernorm', x, D, { gamma, beta, eps });
    expect(bitDifference(y, exact)).toBeNull();
  });
});

describe('the made-up norm in the explainer', () => {
  it('its weights run in its form: its own stages, and its variant beside the package’s forms', async () => {
    const rt = await init();
    const e = explainRow(rt, x, D, 4, { gamma, beta, eps, norm: MADE_UP as 'layernorm' });
    const own = (rt as unknown as Methods)[api.stages]!(x, D, 4, { gamma, beta, eps }) as Record<string, unknown>;
    expect(Object.keys(e.stages).sort()).toEqual(Object.keys(own).sort());
    expect(bitDifference(e.stages.output, own.output as Float32Array)).toBeNull();
    const variants = e.variants as unknown as Record<string, Float32Array | null>;
    expect(bitDifference(variants[MADE_UP]!, e.stages.output)).toBeNull();
    expect(withinContract(variants[MADE_UP]!, exact.subarray(4 * D, 5 * D))).toBeLessThanOrEqual(CONTRACT);
    // The package's forms are there too, each its own call on the row.
    const one = x.subarray(4 * D, 5 * D);
    expect(bitDifference(e.variants.rmsnorm, (rt as LayerNormRuntime).rmsNorm(one, D, { gamma, eps }))).toBeNull();
  });
});

describe('the made-up norm in a worker', () => {
  let w: Methods & { dispose(): void };
  let rt: Methods;
  beforeAll(async () => {
    const script = new URL('../worker/fixtures/made-up-norm-worker.mjs', import.meta.url);
    w = (await initWorker({ worker: () => new Worker(script) })) as unknown as Methods & { dispose(): void };
    rt = (await init()) as unknown as Methods;
  });
  afterAll(() => w.dispose());

  it('its call, resident norm and stages resolve to the main thread’s bits', async () => {
    const y = rt[api.call]!(x, D, { gamma, beta, eps }) as Float32Array;
    expect(withinContract(y)).toBeLessThanOrEqual(CONTRACT);
    const fromWorker = (await w[api.call]!(x.slice(), D, { gamma, beta, eps })) as Float32Array;
    expect(bitDifference(fromWorker, y)).toBeNull();
    const norm = (await w[api.create]!(D, { gamma, beta, eps })) as AsyncResident;
    expect(bitDifference(await norm.forward(x.slice()), y)).toBeNull();
    norm.dispose();
    const s = (await w[api.stages]!(x, D, 5, { gamma, beta, eps })) as Record<string, unknown>;
    expect(bitDifference(s.output as Float32Array, y.subarray(5 * D, 6 * D))).toBeNull();
    expect(s).toHaveProperty('centredSumOfSquares');
  });
});
