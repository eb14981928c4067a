// The api target's generator of whole calls: an op, a shape and an activation kind, and arguments
// that are mostly well-formed for that shape so that calls get past the first checks often enough.
import fc from 'fast-check';
import { activations, anyValue, doubles, floats, wasmView } from './values.mjs';
import { WIDE, WasmView } from './views.mjs';

/** A call to one entry point with arbitrary arguments, described for shrinking and reports. */
export function apiCallArbitrary() {
  const shape = fc.oneof(
    { weight: 30, arbitrary: fc.record({ d: fc.integer({ min: 1, max: 12 }), rows: fc.integer({ min: 0, max: 4 }) }) },
    { weight: 1, arbitrary: fc.record({ d: fc.constant(WIDE), rows: fc.integer({ min: 0, max: 2 }) }) },
  );
  const kinds = fc.constantFrom('float32', 'float32', 'float16', 'bfloat16');
  return fc.tuple(shape, kinds).chain(([{ d, rows }, kind]) => {
    const n = d * rows;
    const value = anyValue(d, rows);
    const eps = fc.oneof(
      {
        weight: 4,
        arbitrary: fc.constantFrom(undefined, 0, -0, 1e-5, 1, 1e300, -1e-5, NaN, Infinity, -Infinity, Number.MIN_VALUE),
      },
      { weight: 2, arbitrary: fc.double() },
      { weight: 1, arbitrary: value },
    );
    // Mostly well-formed, so that calls get past the first check often enough.
    const param = fc.oneof(
      { weight: 4, arbitrary: floats(d) },
      { weight: 2, arbitrary: wasmView(d) },
      { weight: 2, arbitrary: fc.constantFrom(undefined, null) },
      { weight: 2, arbitrary: value },
    );
    /** An array of x's kind and length (out, residual, sumOut), or something else. */
    const like = (absent) =>
      fc.oneof(
        { weight: 4, arbitrary: activations(kind, n) },
        { weight: 2, arbitrary: fc.constant(absent) },
        { weight: 2, arbitrary: value },
      );
    const perRow = fc.oneof(
      { weight: 3, arbitrary: doubles(rows) },
      { weight: 3, arbitrary: wasmView(rows, 'f64') },
      { weight: 2, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.constantFrom(rows + 1, Math.max(rows - 1, 0)).chain(doubles) },
      { weight: 1, arbitrary: value },
    );
    const dtype = fc.oneof(
      { weight: 8, arbitrary: fc.constant(kind === 'float32' ? undefined : kind) },
      { weight: 2, arbitrary: fc.constantFrom(undefined, 'float32', 'float16', 'bfloat16') },
      { weight: 1, arbitrary: value },
    );
    const outArg = like(undefined);
    // Mostly the classic options; now and then an option that needs a residual, without one.
    const plainOptions = fc.record(
      {
        gamma: param,
        beta: param,
        eps,
        out: outArg,
        dtype,
        bias: fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: param }),
        sumOut: fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: like(undefined) }),
        rstd: fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: perRow }),
      },
      { requiredKeys: [] },
    );
    const fusedOptions = fc.record(
      {
        gamma: param,
        beta: fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: param }),
        eps,
        out: outArg,
        dtype,
        residual: fc.oneof({ weight: 5, arbitrary: activations(kind, n) }, { weight: 1, arbitrary: value }),
        bias: param,
        sumOut: like(undefined),
        mean: perRow,
        rstd: perRow,
      },
      { requiredKeys: ['residual'] },
    );
    // Outputs made to share memory now and then: sumOut the out array, or mean in out's memory.
    const aliasedOptions = fc.tuple(fusedOptions, fc.constantFrom('sumOut = out', 'mean in out')).map(([o, alias]) => {
      if (alias === 'sumOut = out') return { ...o, sumOut: o.out };
      const out = o.out;
      if (out instanceof WasmView && out.type === 'f32') return { ...o, mean: new WasmView(out.at >> 1, rows, 'f64') };
      if (
        ArrayBuffer.isView(out) &&
        out instanceof Float32Array &&
        rows > 0 &&
        out.byteOffset % 8 === 0 &&
        out.byteLength >= 8 * rows
      )
        return { ...o, mean: new Float64Array(out.buffer, out.byteOffset, rows) };
      return o;
    });
    // layerNormalization: shapes whose product is n, mostly, cut at any axis.
    const onnxShape = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom([rows, d], [rows, 1, d], [n], [1, rows, d], [rows, d, 1]) },
      { weight: 1, arbitrary: fc.array(fc.integer({ min: -1, max: 6 }), { maxLength: 4 }) },
      { weight: 1, arbitrary: value },
    );
    const onnxParam = fc.oneof(
      { weight: 3, arbitrary: param },
      {
        weight: 3,
        arbitrary: fc.record({
          data: fc.oneof(floats(d), wasmView(d), floats(1), value),
          shape: fc.oneof(fc.constantFrom([d], [1, d], [1], [d, 1], [1, 1, d], [rows, d], [2]), value),
        }),
      },
    );
    const onnxOptions = fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record(
          {
            axis: fc.oneof(fc.integer({ min: -4, max: 3 }), value),
            gamma: onnxParam,
            beta: onnxParam,
            epsilon: eps,
            dtype,
          },
          { requiredKeys: [] },
        ),
      },
      { weight: 1, arbitrary: value },
    );
    return fc.record({
      op: fc.constantFrom(
        'layerNorm',
        'layerNorm',
        'rmsNorm',
        'rmsNorm',
        'layerNormStats',
        'layerNormStages',
        'rmsNormStages',
        'layerNormalization',
        'layerNormalization',
        'forward',
        'forwardRms',
        'forwardDisposed',
        'tensor',
        'tensor',
        'halfBits',
        'init',
      ),
      x: fc.oneof(
        { weight: 4, arbitrary: activations(kind, n) },
        { weight: 1, arbitrary: wasmView(n, kind === 'float32' ? 'u16' : 'f32') },
        { weight: 3, arbitrary: value },
      ),
      d: fc.oneof({ weight: 8, arbitrary: fc.constant(d) }, { weight: 2, arbitrary: value }),
      row: fc.oneof(fc.integer({ min: -1, max: rows }), value),
      options: fc.oneof(
        { weight: 4, arbitrary: plainOptions },
        { weight: 4, arbitrary: fusedOptions },
        { weight: 1, arbitrary: aliasedOptions },
        { weight: 1, arbitrary: value },
      ),
      out: outArg,
      shape: onnxShape,
      onnx: onnxOptions,
      // halfBits: float32ToHalfBits(x, dtype) or halfBitsToFloat32(x, dtype).
      toHalf: fc.boolean(),
      halfDtype: fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom('float16', 'bfloat16') },
        { weight: 1, arbitrary: value },
      ),
      // The tensor op: allocate(rows, d, { dtype }), set(tensorData, offset), then forwardTensor into `target`.
      tensorRows: fc.oneof(
        { weight: 8, arbitrary: fc.constant(rows) },
        { weight: 1, arbitrary: value },
        { weight: 1, arbitrary: fc.constantFrom(2 ** 29, 2 ** 31, 1e21) }, // more than wasm memory holds
      ),
      tensorDtype: fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(undefined, kind) },
        { weight: 1, arbitrary: value },
      ),
      tensorData: fc.oneof(
        { weight: 4, arbitrary: activations(kind, n) },
        {
          weight: 1,
          arbitrary: fc.array(fc.oneof(fc.double(), fc.constantFrom('1', 1n, null, undefined)), {
            minLength: 1,
            maxLength: Math.max(1, Math.min(n, 8)),
          }),
        },
        { weight: 2, arbitrary: value },
      ),
      offset: fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 2, arbitrary: value }),
      target: fc.constantFrom('same', 'other', 'other', 'more rows', 'wider', 'other dtype', 'foreign', 'not a tensor'),
      initOptions: fc.oneof(
        fc.record({ backend: fc.oneof(fc.constantFrom('auto', 'simd', 'scalar'), value) }, { requiredKeys: [] }),
        value,
      ),
      grow: fc.oneof({ weight: 2, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    });
  });
}
