// Runs one generated call of the api target against a runtime.
import { DisposedError, float32ToHalfBits, halfBitsToFloat32 } from '../../../dist/index.js';
import { describeError, fail } from '../oracle.mjs';

/** Runs one op, taking each argument from `arg` when it is used. */
export function invoke(rt, call, arg, foreign) {
  const { op, target } = call;
  switch (op) {
    case 'layerNorm':
    case 'rmsNorm': {
      const y = rt[op](arg('x'), arg('d'), arg('options'));
      return { y, written: arg.written() };
    }
    case 'layerNormStats':
      return rt.layerNormStats(arg('x'), arg('d'), arg('options'));
    case 'layerNormStages':
    case 'rmsNormStages':
      return rt[op](arg('x'), arg('d'), arg('row'), arg('options'));
    case 'layerNormalization':
      return rt.layerNormalization(arg('x'), arg('shape'), arg('onnx'));
    case 'halfBits':
      return call.toHalf
        ? float32ToHalfBits(arg('x'), arg('halfDtype'))
        : halfBitsToFloat32(arg('x'), arg('halfDtype'));
    case 'forward':
    case 'forwardRms':
    case 'forwardDisposed': {
      const ln =
        op === 'forwardRms' ? rt.createRmsNorm(arg('d'), arg('options')) : rt.createLayerNorm(arg('d'), arg('options'));
      try {
        if (op === 'forwardDisposed') {
          ln.dispose();
          try {
            ln.forward(arg('x'), arg('out'));
          } catch (e) {
            if (!(e instanceof DisposedError)) fail(`forward after dispose threw ${describeError(e)}`);
            throw e;
          }
          fail('forward on a disposed LayerNorm did not throw');
        }
        const x = arg('x'),
          out = arg('out');
        return out === undefined ? ln.forward(x) : ln.forward(x, out);
      } finally {
        ln.dispose();
      }
    }
    case 'tensor': {
      const dtype = arg('tensorDtype');
      const t = rt.allocate(arg('tensorRows'), arg('d'), dtype === undefined ? undefined : { dtype });
      try {
        t.set(arg('tensorData'), arg('offset'));
        const ln = rt.createLayerNorm(t.d, arg('options'));
        try {
          const input = t.toArray();
          if (target === 'not a tensor') return ln.forwardTensor(t, arg('out'));
          if (target === 'foreign') return ln.forwardTensor(t, foreign);
          if (target === 'same') {
            ln.forwardTensor(t, t);
            return { input, output: t.toArray() };
          }
          const otherDtype = target === 'other dtype' ? (t.dtype === 'float32' ? 'bfloat16' : 'float32') : t.dtype;
          const o = rt.allocate(t.rows + (target === 'more rows' ? 1 : 0), t.d + (target === 'wider' ? 1 : 0), {
            dtype: otherDtype,
          });
          try {
            ln.forwardTensor(t, o);
            return { input, output: o.toArray() };
          } finally {
            o.dispose();
          }
        } finally {
          ln.dispose();
        }
      } finally {
        t.dispose();
      }
    }
  }
  return fail(`unknown op ${op}`);
}
