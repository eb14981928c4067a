// Property-based fuzz targets shared by the Vitest suites in tests/fuzz/ (small, seeded budgets)
// and by `npm run fuzz` (web/scripts/fuzz.mjs, a million inputs). Plain ESM so both can load it;
// everything runs against the built package in dist/. One file per target, beside this one:
//
//   api           every argument of every numeric entry point, of any type, views of wasm memory
//                 and memory growth mid-call: only the catalogue's errors, results bit-identical to
//                 plain copies' and an exactly unchanged heap (api.mjs, its pieces in ../api/)
//   differential  random shapes and values through the SIMD build, the scalar build and the
//                 correctly rounded reference: SIMD and scalar bit-identical, the accuracy contract met
//   exact         the test kit's hard rows through both builds, every norm and the fused
//                 residual, judged by the exact oracle (tests/kit/exact.mjs)
//   adversarial   hill climbs from constructed starts toward the largest error against the exact
//                 oracle, both builds, the fused residual and the worker (adversarial.mjs)
//   io-*          the file and text parsers (and the ONNX model reader, io-onnx) on arbitrary,
//                 mutated and deeply nested input: only
//                 the package's FormatError, for the format read, naming the source, with one of
//                 the problems of ../format-problems.mjs (no TypeError, RangeError or engine error)
import { init } from '../../../dist/index.js';
import * as io from '../../../dist/io/index.js';
import * as onnx from '../../../dist/onnx/index.js';
import { adversarialTarget } from './adversarial.mjs';
import { apiTarget } from './api.mjs';
import { differentialTarget } from './differential.mjs';
import { exactTarget } from './exact.mjs';
import { ioGgufTarget } from './io-gguf.mjs';
import { ioJsonTarget } from './io-json.mjs';
import { ioNpyTarget } from './io-npy.mjs';
import { ioOnnxTarget } from './io-onnx.mjs';
import { ioSafetensorsTarget } from './io-safetensors.mjs';
import { ioTextTarget } from './io-text.mjs';
import { ioWeightsNpyTarget } from './io-weights-npy.mjs';

/** Loads both backends and the package's I/O functions. */
export async function setup() {
  const simd = await init({ backend: 'simd' });
  const scalar = await init({ backend: 'scalar' });
  if (typeof io.readNpy !== 'function' || typeof io.loadLayerNormWeights !== 'function') {
    throw new Error('dist/index.js does not export the I/O functions: rebuild with npm run build');
  }
  return { simd, scalar, io, onnx };
}

// The order is part of a replay: each target's seed is the base seed plus its index here.
const TARGETS = [
  apiTarget,
  differentialTarget,
  ioNpyTarget,
  ioJsonTarget,
  ioTextTarget,
  ioSafetensorsTarget,
  ioGgufTarget,
  ioWeightsNpyTarget,
  exactTarget,
  ioOnnxTarget,
  adversarialTarget,
];

/** Every target as { name, property(), async } for fc.assert / fc.check; `setup()` first. */
export function targets(ctx) {
  return TARGETS.map((target) => target(ctx));
}
