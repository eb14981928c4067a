// Every bad input of RMSNorm, the fused residual, the statistics outputs, 16-bit activations,
// layerNormalization and the half-bit helpers throws exactly the error type and message that
// web/docs/errors.md quotes in its rows R1…, the runtime works afterwards and the heap is as it
// was; and those rows quote exactly these messages, no more and no fewer (the catalogue cannot
// drift from the code). Long because it is that table, one case per row, in the catalogue's order.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  float32ToHalfBits,
  halfBitsToFloat32,
  init,
  layerNormReference,
  rmsNormReference,
  type LayerNormRuntime,
} from '../../dist/index.js';
import { bitDifference } from '../helpers/bits.js';
import { thrown } from '../helpers/errors.js';

let rt: LayerNormRuntime;
/** 16-bit tensors of 3 values, allocated once (a case may not change heapInUse). */
const tensors: Record<'float16' | 'bfloat16', { set(data: unknown): void }> = {} as never;
beforeAll(async () => {
  rt = await init();
  tensors.float16 = rt.allocate(1, 3, { dtype: 'float16' });
  tensors.bfloat16 = rt.allocate(1, 3, { dtype: 'bfloat16' });
});

const x = new Float32Array(12).map((_, i) => i * 0.5);
const u = float32ToHalfBits(x, 'float16');
const f32 = (n: number) => new Float32Array(n);
const f64 = (n: number) => new Float64Array(n);
const Float16 = (globalThis as { Float16Array?: new (n: number) => ArrayBufferView }).Float16Array;

function detached<T extends ArrayBufferView>(a: T): T {
  structuredClone(a.buffer, { transfer: [a.buffer as ArrayBuffer] });
  return a;
}

const DETACHED =
  'is a view of a detached ArrayBuffer (it was transferred, or it is a wasm memory view taken before memory grew)';
const LOOKALIKE = (type: string) =>
  `got an object that only inherits from ${type}.prototype (a Proxy or Object.create result, not a typed array)`;
const NO_DTYPE = "x is a Uint16Array: say which 16-bit type its bits are with dtype: 'float16' or 'bfloat16'";
const DTYPES = "dtype must be 'float32', 'float16' or 'bfloat16'";

type Case = [id: string, name: string, call: () => unknown, type: ErrorConstructor, message: string];
const CASES: Case[] = [
  ['R1', 'layerNorm of a Uint16Array without dtype', () => rt.layerNorm(u, 3), TypeError, `layerNorm: ${NO_DTYPE}`],
  [
    'R1',
    'layerNorm of a Uint16Array with dtype float32',
    () => rt.layerNorm(u, 3, { dtype: 'float32' } as never),
    TypeError,
    `layerNorm: ${NO_DTYPE}, got dtype 'float32'`,
  ],
  [
    'R1',
    'layerNormStats of a Uint16Array without dtype',
    () => rt.layerNormStats(u, 3),
    TypeError,
    `layerNormStats: ${NO_DTYPE}`,
  ],
  [
    'R1',
    'rmsNormStages of a Uint16Array without dtype',
    () => rt.rmsNormStages(u, 3, 0),
    TypeError,
    `rmsNormStages: ${NO_DTYPE}`,
  ],
  [
    'R1',
    'layerNormalization of a Uint16Array without dtype',
    () => rt.layerNormalization(u, [4, 3]),
    TypeError,
    `layerNormalization: ${NO_DTYPE}`,
  ],
  [
    'R1',
    'layerNormReference of a Uint16Array without dtype',
    () => layerNormReference(u, 3),
    TypeError,
    `layerNormReference: ${NO_DTYPE}`,
  ],
  [
    'R2',
    'a Float32Array with dtype float16',
    () => rt.layerNorm(x, 3, { dtype: 'float16' }),
    TypeError,
    "layerNorm: dtype 'float16' needs x as a Float16Array or a Uint16Array of its bits, got a Float32Array",
  ],
  [
    'R2',
    'a Float32Array with dtype bfloat16',
    () => rt.rmsNorm(x, 3, { dtype: 'bfloat16' }),
    TypeError,
    "rmsNorm: dtype 'bfloat16' needs x as a Uint16Array of its bits, got a Float32Array",
  ],
  [
    'R2',
    'a Float16Array with dtype bfloat16 (where the engine has Float16Array)',
    () => rt.layerNorm(new Float16!(12) as never, 3, { dtype: 'bfloat16' }),
    TypeError,
    "layerNorm: x is a Float16Array, whose values are float16, got dtype 'bfloat16'",
  ],
  [
    'R3',
    'dtype "fp16"',
    () => rt.layerNorm(x, 3, { dtype: 'fp16' } as never),
    TypeError,
    `layerNorm: ${DTYPES}, got string "fp16"`,
  ],
  ['R3', 'dtype null', () => rt.layerNorm(x, 3, { dtype: null } as never), TypeError, `layerNorm: ${DTYPES}, got null`],
  [
    'R3',
    'createRmsNorm dtype 16',
    () => rt.createRmsNorm(3, { dtype: 16 } as never),
    TypeError,
    `createRmsNorm: ${DTYPES}, got number 16`,
  ],
  [
    'R3',
    'allocate dtype "int8"',
    () => rt.allocate(1, 3, { dtype: 'int8' } as never),
    TypeError,
    `allocate: ${DTYPES}, got string "int8"`,
  ],
  [
    'R4',
    'out a Uint16Array for a Float32Array x',
    () => rt.layerNorm(x, 3, { out: new Uint16Array(12) } as never),
    TypeError,
    'layerNorm: out must be a Float32Array, got Uint16Array(12)',
  ],
  [
    'R4',
    'residual a Float32Array for float16 bits',
    () => rt.layerNorm(u, 3, { dtype: 'float16', residual: f32(12) } as never),
    TypeError,
    'layerNorm: residual must be a Uint16Array like x (float16), got Float32Array(12)',
  ],
  [
    'R4',
    'sumOut a Float64Array',
    () => rt.rmsNorm(x, 3, { residual: x, sumOut: f64(12) } as never),
    TypeError,
    'rmsNorm: sumOut must be a Float32Array, got Float64Array(12)',
  ],
  [
    'R4',
    'a stages residual of another kind',
    () => rt.layerNormStages(x, 3, 0, { residual: new Uint16Array(12) }),
    TypeError,
    'layerNormStages: residual must be a Float32Array, got Uint16Array(12)',
  ],
  [
    'R5',
    'residual of 9 values',
    () => rt.layerNorm(x, 3, { residual: f32(9) }),
    RangeError,
    'layerNorm: residual must have length 12 (the same as x), got length 9',
  ],
  [
    'R5',
    'sumOut of 24 values',
    () => rt.rmsNorm(x, 3, { residual: x, sumOut: f32(24) }),
    RangeError,
    'rmsNorm: sumOut must have length 12 (the same as x), got length 24',
  ],
  [
    'R6',
    'bias without residual',
    () => rt.layerNorm(x, 3, { bias: f32(3) }),
    TypeError,
    'layerNorm: bias is added with the residual: pass residual too (got bias Float32Array(3) alone)',
  ],
  [
    'R6',
    'sumOut without residual',
    () => rt.rmsNorm(x, 3, { sumOut: f32(12) }),
    TypeError,
    'rmsNorm: sumOut receives x + residual: pass residual too (got sumOut Float32Array(12) alone)',
  ],
  [
    'R6',
    'stages bias without residual',
    () => rt.layerNormStages(x, 3, 0, { bias: f32(3) }),
    TypeError,
    'layerNormStages: bias is added with the residual: pass residual too (got bias Float32Array(3) alone)',
  ],
  [
    'R7',
    'bias a Float64Array',
    () => rt.layerNorm(x, 3, { residual: x, bias: f64(3) } as never),
    TypeError,
    'layerNorm: bias must be a Float32Array, got Float64Array(3)',
  ],
  [
    'R7',
    'bias of 2 values',
    () => rt.layerNorm(x, 3, { residual: x, bias: f32(2) }),
    RangeError,
    'layerNorm: bias must have length d = 3, got length 2',
  ],
  [
    'R8',
    'sumOut = out',
    () => {
      const out = f32(12);
      return rt.layerNorm(x, 3, { residual: x, sumOut: out, out });
    },
    RangeError,
    'layerNorm: sumOut and out must not share memory (the sum and the output are both kept)',
  ],
  [
    'R8',
    'sumOut overlapping out by one value',
    () => {
      const b = f32(23);
      return rt.rmsNorm(x, 3, { residual: x, sumOut: b.subarray(0, 12), out: b.subarray(11) });
    },
    RangeError,
    'rmsNorm: sumOut and out must not share memory (the sum and the output are both kept)',
  ],
  [
    'R9',
    'rmsNorm with beta',
    () => rt.rmsNorm(x, 3, { beta: f32(3) } as never),
    TypeError,
    'rmsNorm: RMSNorm has no bias term, so no beta option; got beta Float32Array(3)',
  ],
  [
    'R9',
    'createRmsNorm with beta',
    () => rt.createRmsNorm(3, { beta: f32(3) } as never),
    TypeError,
    'createRmsNorm: RMSNorm has no bias term, so no beta option; got beta Float32Array(3)',
  ],
  [
    'R9',
    'rmsNormStages with beta',
    () => rt.rmsNormStages(x, 3, 0, { beta: f32(3) } as never),
    TypeError,
    'rmsNormStages: RMSNorm has no bias term, so no beta option; got beta Float32Array(3)',
  ],
  [
    'R9',
    'rmsNormReference with beta',
    () => rmsNormReference(x, 3, { beta: f32(3) } as never),
    TypeError,
    'rmsNormReference: RMSNorm has no bias term, so no beta option; got beta Float32Array(3)',
  ],
  [
    'R10',
    'rmsNorm with mean',
    () => rt.rmsNorm(x, 3, { mean: f64(4) } as never),
    TypeError,
    'rmsNorm: RMSNorm has no mean, so no mean option; got mean Float64Array(4)',
  ],
  [
    'R11',
    'mean a Float32Array',
    () => rt.layerNorm(x, 3, { mean: f32(4) } as never),
    TypeError,
    'layerNorm: mean must be a Float64Array (one entry per row), got Float32Array(4)',
  ],
  [
    'R11',
    'rstd an Array',
    () => rt.rmsNorm(x, 3, { rstd: [1, 2, 3, 4] } as never),
    TypeError,
    'rmsNorm: rstd must be a Float64Array (one entry per row), got Array(4)',
  ],
  [
    'R11',
    'mean a Proxy of a Float64Array',
    () => rt.layerNorm(x, 3, { mean: new Proxy(f64(4), {}) }),
    TypeError,
    `layerNorm: mean must be a Float64Array, ${LOOKALIKE('Float64Array')}`,
  ],
  [
    'R11',
    'rstd on a detached buffer',
    () => rt.layerNorm(x, 3, { rstd: detached(f64(4)) }),
    TypeError,
    `layerNorm: rstd ${DETACHED}; pass a live Float64Array`,
  ],
  [
    'R12',
    'mean of 3 entries for 4 rows',
    () => rt.layerNorm(x, 3, { mean: f64(3) }),
    RangeError,
    'layerNorm: mean must have length 4 (one entry per row), got length 3',
  ],
  [
    'R12',
    'rstd of 5 entries for 4 rows',
    () => rt.rmsNorm(x, 3, { rstd: f64(5) }),
    RangeError,
    'rmsNorm: rstd must have length 4 (one entry per row), got length 5',
  ],
  [
    'R13',
    'mean and rstd the same array',
    () => {
      const s = f64(4);
      return rt.layerNorm(x, 3, { mean: s, rstd: s });
    },
    RangeError,
    'layerNorm: mean and rstd must not share memory',
  ],
  [
    'R13',
    'rstd in out’s memory',
    () => {
      const out = f32(12);
      return rt.layerNorm(x, 3, { out, rstd: new Float64Array(out.buffer, 8, 4) });
    },
    RangeError,
    'layerNorm: rstd and out must not share memory (both are outputs)',
  ],
  [
    'R13',
    'mean in sumOut’s memory',
    () => {
      const sumOut = f32(12);
      return rt.layerNorm(x, 3, { residual: x, sumOut, mean: new Float64Array(sumOut.buffer, 0, 4) });
    },
    RangeError,
    'layerNorm: mean and sumOut must not share memory (both are outputs)',
  ],
  [
    'R14',
    'a float16 LayerNorm’s forward of a Float32Array',
    () => rt.createLayerNorm(3, { dtype: 'float16' }).forward(x),
    TypeError,
    "LayerNorm.forward: dtype 'float16' needs x as a Float16Array or a Uint16Array of its bits, got a Float32Array",
  ],
  [
    'R14',
    'a float32 LayerNorm’s forward of bits',
    () => rt.createLayerNorm(3).forward(u),
    TypeError,
    'LayerNorm.forward: x must be a Float32Array, got Uint16Array(12)',
  ],
  [
    'R14',
    'a bfloat16 RMSNorm’s forward into a Float32Array',
    () => rt.createRmsNorm(3, { dtype: 'bfloat16' }).forward(u, f32(12) as never),
    TypeError,
    'LayerNorm.forward: out must be a Uint16Array like x (bfloat16), got Float32Array(12)',
  ],
  [
    'R15',
    'forwardTensor of float16 tensors on a float32 LayerNorm',
    () => {
      using ln = rt.createLayerNorm(3);
      using a = rt.allocate(4, 3, { dtype: 'float16' });
      using b = rt.allocate(4, 3);
      return ln.forwardTensor(a, b);
    },
    TypeError,
    'LayerNorm.forwardTensor: this LayerNorm takes float32 tensors, got input float16 and output float32',
  ],
  [
    'R15',
    'forwardTensor into a float16 tensor on a bfloat16 RMSNorm',
    () => {
      using ln = rt.createRmsNorm(3, { dtype: 'bfloat16' });
      using a = rt.allocate(4, 3, { dtype: 'bfloat16' });
      using b = rt.allocate(4, 3, { dtype: 'float16' });
      return ln.forwardTensor(a, b);
    },
    TypeError,
    'LayerNorm.forwardTensor: this RMSNorm takes bfloat16 tensors, got input bfloat16 and output float16',
  ],
  [
    'R16',
    'shape a number',
    () => rt.layerNormalization(x, 12 as never),
    TypeError,
    'layerNormalization: shape must be an array of dimensions, got number 12',
  ],
  [
    'R16',
    'shape []',
    () => rt.layerNormalization(x, []),
    RangeError,
    'layerNormalization: shape must have at least one dimension, got []',
  ],
  [
    'R16',
    'shape with a string',
    () => rt.layerNormalization(x, [3, '4'] as never),
    TypeError,
    'layerNormalization: shape[1] must be an integer >= 0, got string "4"',
  ],
  [
    'R16',
    'shape with a hole',
    () => rt.layerNormalization(x, [, 12] as never),
    TypeError,
    'layerNormalization: shape[0] must be an integer >= 0, got undefined',
  ],
  [
    'R16',
    'shape with 1.5',
    () => rt.layerNormalization(x, [1.5, 8]),
    RangeError,
    'layerNormalization: shape[0] must be an integer >= 0, got number 1.5',
  ],
  [
    'R16',
    'shape of 15 values',
    () => rt.layerNormalization(x, [3, 5]),
    RangeError,
    'layerNormalization: shape [3, 5] holds 15 values, but x has 12',
  ],
  [
    'R17',
    'axis 2 of a rank-2 x',
    () => rt.layerNormalization(x, [3, 4], { axis: 2 }),
    RangeError,
    'layerNormalization: axis must be an integer in [-2, 2) for a rank-2 x, got number 2',
  ],
  [
    'R17',
    'axis -3 of a rank-2 x',
    () => rt.layerNormalization(x, [3, 4], { axis: -3 }),
    RangeError,
    'layerNormalization: axis must be an integer in [-2, 2) for a rank-2 x, got number -3',
  ],
  [
    'R17',
    'axis "1"',
    () => rt.layerNormalization(x, [3, 4], { axis: '1' } as never),
    TypeError,
    'layerNormalization: axis must be an integer in [-2, 2) for a rank-2 x, got string "1"',
  ],
  [
    'R17',
    'axis null',
    () => rt.layerNormalization(x, [3, 4], { axis: null } as never),
    TypeError,
    'layerNormalization: axis must be an integer in [-2, 2) for a rank-2 x, got null',
  ],
  [
    'R18',
    'normalized dimensions of no values',
    () => rt.layerNormalization(f32(0), [3, 0]),
    RangeError,
    'layerNormalization: the normalized dimensions [0] (axis -1) hold no values to normalize',
  ],
  [
    'R18',
    'normalized dimensions of more values than a row may have',
    () => rt.layerNormalization(f32(0), [0, 2 ** 15, 2 ** 14], { axis: 1 }),
    RangeError,
    'layerNormalization: the normalized dimensions [32768, 16384] (axis 1) hold 536870912 values, more than a row may have (268435456: one row must fit in wasm memory)',
  ],
  [
    'R19',
    'gamma of 3 values for 4 normalized',
    () => rt.layerNormalization(x, [3, 4], { gamma: f32(3) }),
    RangeError,
    'layerNormalization: gamma of shape [3] does not broadcast to the normalized dimensions [4]',
  ],
  [
    'R19',
    'a per-row beta [3, 4] for axis -1',
    () => rt.layerNormalization(x, [3, 4], { beta: { data: f32(12), shape: [3, 4] } }),
    RangeError,
    'layerNormalization: beta of shape [3, 4] does not broadcast to the normalized dimensions [4]',
  ],
  [
    'R20',
    'gamma an Array',
    () => rt.layerNormalization(x, [3, 4], { gamma: [1, 2, 3, 4] } as never),
    TypeError,
    'layerNormalization: gamma must be a Float32Array or { data: Float32Array, shape }, got Array(4)',
  ],
  [
    'R20',
    'gamma.data an Array',
    () => rt.layerNormalization(x, [3, 4], { gamma: { data: [1, 2, 3, 4], shape: [4] } } as never),
    TypeError,
    'layerNormalization: gamma.data must be a Float32Array, got Array(4)',
  ],
  [
    'R20',
    'beta.shape a number',
    () => rt.layerNormalization(x, [3, 4], { beta: { data: f32(4), shape: 4 } } as never),
    TypeError,
    'layerNormalization: beta.shape must be an array, got number 4',
  ],
  [
    'R20',
    'gamma.shape with 4.5',
    () => rt.layerNormalization(x, [3, 4], { gamma: { data: f32(4), shape: [4.5] } }),
    RangeError,
    'layerNormalization: gamma.shape[0] must be an integer >= 0, got number 4.5',
  ],
  [
    'R20',
    'gamma.shape of 2 values for 4',
    () => rt.layerNormalization(x, [3, 4], { gamma: { data: f32(4), shape: [2] } }),
    RangeError,
    'layerNormalization: gamma.shape [2] holds 2 values, but gamma.data has 4',
  ],
  [
    'R21',
    'epsilon -1',
    () => rt.layerNormalization(x, [3, 4], { epsilon: -1 }),
    RangeError,
    'layerNormalization: epsilon must be a finite number >= 0, got number -1',
  ],
  [
    'R21',
    'epsilon "1e-5"',
    () => rt.layerNormalization(x, [3, 4], { epsilon: '1e-5' } as never),
    TypeError,
    'layerNormalization: epsilon must be a finite number >= 0, got string "1e-5"',
  ],
  [
    'R22',
    'halfBitsToFloat32 of a Float32Array',
    () => halfBitsToFloat32(f32(2) as never, 'float16'),
    TypeError,
    'halfBitsToFloat32: bits must be a Uint16Array, got Float32Array(2)',
  ],
  [
    'R22',
    'halfBitsToFloat32 of a Proxy',
    () => halfBitsToFloat32(new Proxy(new Uint16Array(2), {}), 'float16'),
    TypeError,
    `halfBitsToFloat32: bits must be a Uint16Array, ${LOOKALIKE('Uint16Array')}`,
  ],
  [
    'R22',
    'halfBitsToFloat32 dtype float32',
    () => halfBitsToFloat32(new Uint16Array(2), 'float32' as never),
    TypeError,
    `halfBitsToFloat32: dtype must be 'float16' or 'bfloat16', got string "float32"`,
  ],
  [
    'R22',
    'halfBitsToFloat32 without dtype',
    () => (halfBitsToFloat32 as (b: Uint16Array) => unknown)(new Uint16Array(2)),
    TypeError,
    `halfBitsToFloat32: dtype must be 'float16' or 'bfloat16', got undefined`,
  ],
  [
    'R22',
    'float32ToHalfBits of an Array',
    () => float32ToHalfBits([1, 2] as never, 'bfloat16'),
    TypeError,
    'float32ToHalfBits: values must be a Float32Array, got Array(2)',
  ],
  [
    'R22',
    'float32ToHalfBits of a detached Float32Array',
    () => float32ToHalfBits(detached(f32(2)), 'float16'),
    TypeError,
    `float32ToHalfBits: values ${DETACHED}; pass a live Float32Array`,
  ],
  ['R23', 'rmsNorm d = 0', () => rt.rmsNorm(x, 0), RangeError, 'rmsNorm: d must be a positive integer, got number 0'],
  [
    'R23',
    'rmsNormStages row 4 of 4',
    () => rt.rmsNormStages(x, 3, 4),
    RangeError,
    'rmsNormStages: row must be an integer in [0, 4), got number 4',
  ],
  [
    'R23',
    'createRmsNorm eps "1"',
    () => rt.createRmsNorm(3, { eps: '1' } as never),
    TypeError,
    'createRmsNorm: eps must be a finite number >= 0, got string "1"',
  ],
  [
    'R23',
    'rmsNorm gamma of 4 values',
    () => rt.rmsNorm(x, 3, { gamma: f32(4) }),
    RangeError,
    'rmsNorm: gamma must have length d = 3, got length 4',
  ],
  [
    'R26',
    'layerNormReference with out',
    () => layerNormReference(x, 3, { out: f32(12) } as never),
    TypeError,
    'layerNormReference: the reference returns a new Float32Array and fills no out; got out Float32Array(12)',
  ],
  [
    'R26',
    'rmsNormReference with sumOut',
    () => rmsNormReference(x, 3, { residual: x, sumOut: f32(12) } as never),
    TypeError,
    'rmsNormReference: the reference returns a new Float32Array and fills no sumOut; got sumOut Float32Array(12)',
  ],
  [
    'R26',
    'layerNormReference with mean',
    () => layerNormReference(x, 3, { mean: new Float64Array(4) } as never),
    TypeError,
    'layerNormReference: the reference returns a new Float32Array and fills no mean; got mean Float64Array(4)',
  ],
  [
    'R25',
    'WasmTensor.set of float values into a float16 tensor',
    () => tensors.float16.set(Float32Array.of(1.5, 2, 3)),
    RangeError,
    "WasmTensor.set: a float16 tensor holds bit patterns, so data[0] must be an integer in [0, 65535], got number 1.5; convert values with float32ToHalfBits(values, 'float16')",
  ],
  [
    'R25',
    'WasmTensor.set of a value past 16 bits into a bfloat16 tensor',
    () => tensors.bfloat16.set([1, 2, 70000]),
    RangeError,
    "WasmTensor.set: a bfloat16 tensor holds bit patterns, so data[2] must be an integer in [0, 65535], got number 70000; convert values with float32ToHalfBits(values, 'bfloat16')",
  ],
  [
    'R25',
    'WasmTensor.set of a Float16Array into a bfloat16 tensor',
    () =>
      tensors.bfloat16.set(
        new (globalThis as unknown as { Float16Array: new (n: number) => Uint16Array }).Float16Array(3),
      ),
    TypeError,
    "WasmTensor.set: a Float16Array cannot fill a bfloat16 tensor; convert it with float32ToHalfBits(Float32Array.from(values), 'bfloat16')",
  ],
];

function expectWorking() {
  const y = rt.layerNorm(x, 3);
  expect(y[0]).toBeCloseTo(-1.2247, 3);
  expect(rt.rmsNorm(x, 3, { residual: x })[2]).toBeCloseTo(1.5492, 3);
}

/** Cases that need Float16Array, which Node 20 lacks. */
const needsFloat16 = (c: Case) => c[1].includes('Float16Array');

function expectExactly(id: string, call: () => unknown, type: ErrorConstructor, message: string) {
  const heap = rt.heapInUse();
  const e = thrown(call);
  expect(e.constructor, id).toBe(type);
  expect(e.message, id).toBe(message);
  expect(rt.heapInUse()).toBe(heap);
  expectWorking();
}

describe('exact errors', () => {
  it.each(CASES.filter((c) => !needsFloat16(c)))('%s: %s', (id, _name, call, type, message) =>
    expectExactly(id, call, type, message),
  );

  // Node 20 has no Float16Array: reported as skipped there, run where the engine has one.
  it.skipIf(!Float16)('the cases with a Float16Array', () => {
    for (const [id, , call, type, message] of CASES.filter(needsFloat16)) expectExactly(id, call, type, message);
  });
});

describe('accepted inputs that look risky', () => {
  it('null residual, bias, sumOut, mean and rstd mean none; an empty options object is the default call', () => {
    const y = rt.layerNorm(x, 3);
    const nulls = { residual: null, bias: null, sumOut: null, mean: null, rstd: null };
    expect(bitDifference(rt.layerNorm(x, 3, nulls), y)).toBeNull();
    expect(
      bitDifference(rt.rmsNorm(x, 3, { residual: null, rstd: null, beta: null } as never), rt.rmsNorm(x, 3)),
    ).toBeNull();
    expect(bitDifference(rt.layerNormalization(x, [4, 3], { gamma: null, beta: null }).y, y)).toBeNull();
  });

  it('statistics in the memory of x or of the residual (inputs, not outputs) are read before they are written', () => {
    const expected = rt.layerNormStats(x, 3);
    const backing = new Float32Array(12 + 8);
    backing.set(x);
    const mean = new Float64Array(backing.buffer, 16, 4); // overlaps x's values 4…11
    const y = rt.layerNorm(backing.subarray(0, 12), 3, { mean });
    expect(bitDifference(y, rt.layerNorm(x, 3))).toBeNull();
    expect(bitDifference(mean, expected.mean)).toBeNull();
  });
});

describe('web/docs/errors.md quotes exactly these messages in its rows R1…', () => {
  const catalogue = readFileSync(new URL('../../web/docs/errors.md', import.meta.url), 'utf8');
  const rows = new Map<string, { error: string; messages: string[] }>();
  for (const line of catalogue.split('\n')) {
    const cells = line.split(/(?<!\\)\|/).map((c) => c.trim());
    if (!/^R\d+$/.test(cells[1] ?? '') || cells[3]!.includes('accepted')) continue;
    const messages = [...cells[4]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.replace(/\\\|/g, '|'));
    rows.set(cells[1]!, { error: cells[3]!, messages });
  }

  it('every case has its row, with its error type and its message', () => {
    for (const [id, name, , type, message] of CASES) {
      const row = rows.get(id);
      expect(row, `${id} is missing from the catalogue`).toBeDefined();
      expect(row!.error, `${id}: ${name}`).toContain(type.name);
      expect(row!.messages, `${id}: ${name}`).toContain(message);
    }
  });

  it('every message of those rows is thrown by a case (none is quoted that the code does not throw)', () => {
    expect(rows.size).toBeGreaterThan(20);
    for (const [id, row] of rows) {
      const thrownHere = CASES.filter((c) => c[0] === id).map((c) => c[4]);
      expect(row.messages.length, `${id} quotes no message`).toBeGreaterThan(0);
      for (const m of row.messages) expect(thrownHere, `${id}: ${m}`).toContain(m);
    }
  });
});
