// The api target's runtime and the arguments it hands to a call: its own runtime with a pool tensor
// that views of wasm memory point into, replaced once memory passes a budget so that growth can be
// exercised without limit.
import fc from 'fast-check';
import { init } from '../../../dist/index.js';
import { freshRuntime, growOnAllocate, memoryBytes } from '../../helpers/heap-growth.mjs';
import { fail, sameBits } from '../oracle.mjs';
import { floats } from './values.mjs';
import { POOL, StaleView, WasmView, isRecord } from './views.mjs';

const MEMORY_BUDGET = 64 * 2 ** 20;

/** The options a call writes besides its result, read back to compare. */
const WRITTEN = ['sumOut', 'mean', 'rstd'];

export class ApiContext {
  rt = null;
  growth = null;
  pool = null;
  stale = null;
  foreign = null; // a tensor of another runtime
  #probe = new Float32Array([0.5, -1, 2, 7, 7, 7, 1e-3, 1e4, -3e4]);
  #probeGamma = new Float32Array([1.5, -0.25, 3]);
  #expected = null;
  /** What the runs reached, for the test to check that they reach what they should. */
  counts = { calls: 0, wasmArguments: 0, grewAndReturned: 0, grewAndThrew: 0, runtimes: 0, errors: {} };

  /** A runtime of its own with a pool tensor, replaced once its memory passes the budget. */
  async ready() {
    this.foreign ??= (await init({ backend: 'scalar' })).allocate(1, 1);
    if (this.rt && memoryBytes(this.rt) <= MEMORY_BUDGET) return;
    this.growth?.restore();
    this.rt = await freshRuntime('simd');
    this.growth = growOnAllocate(this.rt);
    this.pool = this.rt.allocate(1, POOL);
    this.pool.set(fc.sample(floats(POOL), { seed: this.counts.runtimes, numRuns: 1 })[0]);
    if (this.pool.view.byteOffset % 8 !== 0) fail('the pool tensor is not 8-aligned');
    this.stale = this.pool.view;
    this.growth.during(() => this.rt.allocate(1, 1).dispose());
    if (this.stale.length !== 0) fail('the stale view of wasm memory is not detached');
    this.#expected = this.rt.layerNorm(this.#probe, 3, { gamma: this.#probeGamma });
    this.counts.runtimes++;
  }

  count(errorName) {
    this.counts.errors[errorName] = (this.counts.errors[errorName] ?? 0) + 1;
  }

  checkWorking() {
    const y = this.rt.layerNorm(this.#probe, 3, { gamma: this.#probeGamma });
    if (!sameBits(y, this.#expected)) fail('the runtime computes a different result after the call');
  }

  /** A fresh view of the pool's memory for a WasmView. */
  view(v) {
    const base = this.pool.view;
    if (v.type === 'u16') return new Uint16Array(base.buffer, base.byteOffset + 2 * v.at, v.length);
    if (v.type === 'f64') return new Float64Array(base.buffer, base.byteOffset + 8 * v.at, v.length);
    return base.subarray(v.at, v.at + v.length);
  }

  /**
   * The call's arguments, each made a JS value when the op reaches it: a view of the pool then (a
   * view taken before one of the op's own allocations would be detached by it, for a user as here),
   * or a plain copy. `arg.seen` keeps what was handed out; `arg.written()` reads back the options
   * the call writes (from the pool for views, which the call may have detached by growing it).
   */
  arguments(call, copies) {
    const m = (v, depth = 2) => {
      if (v instanceof StaleView) return this.stale;
      if (v instanceof WasmView) {
        const view = this.view(v);
        return copies ? view.slice() : view;
      }
      if (depth > 0 && isRecord(v)) return Object.fromEntries(Object.entries(v).map(([k, w]) => [k, m(w, depth - 1)]));
      return v;
    };
    const seen = {};
    const arg = (name) => (seen[name] = m(call[name]));
    arg.seen = seen;
    arg.written = () => {
      const out = {};
      if (!isRecord(call.options) || !isRecord(seen.options)) return out;
      for (const key of WRITTEN) {
        const v = call.options[key];
        if (v === undefined || v === null) continue;
        if (v instanceof WasmView && !copies) out[key] = this.view(v).slice();
        else if (ArrayBuffer.isView(seen.options[key])) out[key] = seen.options[key].slice();
      }
      return out;
    };
    return arg;
  }
}
