// Memory discipline at scale: 100,000 create/forward/dispose cycles and 100,000 stateless calls
// leave the wasm heap exactly where it started.
import { beforeAll, describe, expect, it } from 'vitest';
import { init, type LayerNormRuntime } from '../../dist/index.js';

let rt: LayerNormRuntime;
beforeAll(async () => {
  rt = await init();
});

const N = 100_000;

function data(n: number, seed: number): Float32Array {
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) a[i] = Math.sin(seed + i * 0.37) * (1 + (i % 5));
  return a;
}

describe('heap after 100,000 cycles', () => {
  it('create/forward/dispose (with and without gamma/beta and out, zero-copy every 10th) leaves heapInUse unchanged', () => {
    const d = 48;
    const x = data(2 * d, 1),
      gamma = data(d, 2),
      beta = data(d, 3);
    const out = new Float32Array(x.length);
    // Warm up once so lazily created runtime buffers exist before measuring.
    rt.createLayerNorm(d, { gamma, beta }).dispose();
    const before = rt.heapInUse();
    for (let i = 0; i < N; i++) {
      const ln = rt.createLayerNorm(d, i % 3 === 0 ? {} : i % 3 === 1 ? { gamma } : { gamma, beta, eps: 1e-6 });
      if (i % 2 === 0) ln.forward(x, out);
      else ln.forward(x); // a new array
      if (i % 10 === 0) {
        const t = rt.allocate(2, d);
        t.set(x);
        ln.forwardTensor(t, t);
        t.dispose();
      }
      ln.dispose();
    }
    expect(rt.heapInUse()).toBe(before);
  });

  it('stateless layerNorm / layerNormStats / layerNormStages calls, and rejected calls, leave heapInUse unchanged', () => {
    const d = 64;
    const x = data(3 * d, 4),
      gamma = data(d, 5),
      beta = data(d, 6);
    const out = new Float32Array(x.length);
    // Stateless calls allocate nothing that outlives them: the runtime reserves its buffers up front.
    const before = rt.heapInUse();
    rt.layerNorm(x, d, { gamma, beta, out });
    expect(rt.heapInUse()).toBe(before);
    for (let i = 0; i < N; i++) {
      switch (i % 8) {
        case 0:
          rt.layerNormStats(x, d);
          break;
        case 1:
          rt.layerNormStages(x, d, i % 3, { gamma, beta });
          break;
        case 2:
          rt.layerNorm(x, d, { gamma });
          break;
        case 3:
          expect(() => rt.layerNorm(x, d + 1)).toThrow(RangeError);
          break;
        case 4:
          rt.layerNorm(x, d, { beta, out: x.slice() });
          // A row wider than the runtime's chunk goes through a temporary row buffer.
          if (i % 1000 === 4) rt.layerNorm(new Float32Array(70_000), 70_000);
          break;
        default:
          rt.layerNorm(x, d, { gamma, beta, out });
      }
    }
    expect(rt.heapInUse()).toBe(before);
  });
});
