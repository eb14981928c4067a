/** A LayerNorm or RMSNorm whose gain (and bias) stay in the heap: one block, gamma then beta. */
import { DTYPE_CODES, kindOf, type ActivationKind } from '../checks/activations.js';
import { checkNormCall, isPlain, type CheckedNorm, type NormKind } from '../checks/call.js';
import { NORMS, normWire } from '../norms.js';
import { formOf } from './wire-call.js';
import { asJob, isPerToken, type Job, type Params } from './plan.js';
import { quickCheck } from '../checks/quick-check.js';
import type { RuntimeCore } from './runtime-core.js';
import type { CallArrays } from './heap.js';
import { HeapOwner } from './heap-owner.js';
import { Tensor } from './tensor.js';
import type { ActivationArray, DType, LayerNorm, TensorArray, WasmTensor } from '../types.js';
import { checkFloat32Array } from '../checks/validate.js';

/**
 * The checks of `forward(x, out)` on a resident norm: x must be the activations it takes (a
 * Float32Array for float32; for the 16-bit types their Uint16Array of bits, or a Float16Array
 * for float16). Shared with the worker, which runs them before an array leaves the caller.
 */
export function checkForward(
  r: { norm: NormKind; d: number; eps: number; dtype: DType },
  x: unknown,
  out: unknown,
): CheckedNorm {
  const fn = 'LayerNorm.forward';
  const options = { dtype: r.dtype === 'float32' ? undefined : r.dtype, out, eps: r.eps };
  // A Float32Array or Uint16Array of the norm's kind goes the quick way (quick-check.ts).
  if (r.dtype === 'float32' ? x instanceof Float32Array : x instanceof Uint16Array) {
    const c = quickCheck(fn, r.norm, x, r.d, options);
    if (c) return c;
  }
  if (r.dtype === 'float32') checkFloat32Array(fn, 'x', x);
  else kindOf(fn, 'x', x, r.dtype);
  return checkNormCall(fn, r.norm, x, r.d, options);
}

const EMPTY = new Float32Array(0);

export class ResidentNorm extends HeapOwner implements LayerNorm {
  readonly hasGamma: boolean;
  readonly hasBeta: boolean;
  readonly dtype: DType;
  readonly #what: string;
  readonly #plainForm: number;
  readonly #gain: Params;
  /** What forwardTensor asks of the core, the same every call. */
  readonly #tensorCall: Job;

  constructor(
    runtime: RuntimeCore,
    readonly norm: NormKind,
    kind: ActivationKind,
    readonly d: number,
    gamma: Float32Array | null,
    beta: Float32Array | null,
    readonly eps: number,
  ) {
    const heap = runtime.heap;
    const fn = NORMS[norm].api.create;
    const args: CallArrays = { gamma, beta };
    const ptr = gamma || beta ? heap.allocate(8 * d, `${fn}: gamma and beta for d = ${d}`, args) : 0;
    try {
      if (args.gamma) heap.write(ptr, args.gamma as Float32Array);
      if (args.beta) heap.write(ptr + 4 * d, args.beta as Float32Array);
    } catch (e) {
      heap.free(ptr);
      throw e;
    }
    super(runtime, ptr);
    this.hasGamma = gamma !== null;
    this.hasBeta = beta !== null;
    this.dtype = kind.dtype;
    this.#what = NORMS[norm].name;
    this.#gain = { gamma: gamma ? ptr : 0, beta: beta ? ptr + 4 * d : 0 };
    this.#tensorCall = asJob({ fn: 'LayerNorm.forwardTensor', norm, kind, rows: 0, d, eps, x: EMPTY });
    // Its float32 calls with nothing fused take the per-token path (forward) in this form.
    this.#plainForm = isPlain(this.#tensorCall) ? formOf(normWire(NORMS[norm]), DTYPE_CODES.float32) : -1;
  }

  /** The gain and bias in the heap, made once: the block stays where it is until dispose(). */
  #params(fn: string): Params {
    this.address(fn, this.#what, '; create a new one');
    return this.#gain;
  }

  forward<A extends ActivationArray = Float32Array>(x: A, out?: A): A {
    const params = this.#params('LayerNorm.forward');
    // The per-token call: a float32 LayerNorm of plain live arrays that fit the chunk goes straight
    // to the kernel (what checkForward would accept, checked in a few comparisons).
    if (this.#plainForm >= 0 && x instanceof Float32Array && ArrayBuffer.isView(x)) {
      const n = x.length,
        d = this.d;
      if (
        n > 0 &&
        n % d === 0 &&
        isPerToken(n / d, d, false) &&
        (out === undefined || (out instanceof Float32Array && ArrayBuffer.isView(out) && out.length === n))
      ) {
        const y = (out ?? null) as Float32Array | null;
        const { gamma, beta } = params;
        const form = this.#plainForm;
        return this.runtime.executor.perToken(form, x, y, n / d, d, gamma, beta, this.eps, null, null) as A;
      }
    }
    const call = checkForward(this, x, out);
    return this.runtime.normalize(call, params) as A;
  }

  forwardTensor(input: WasmTensor<TensorArray>, output: WasmTensor<TensorArray>): void {
    const fn = 'LayerNorm.forwardTensor';
    const params = this.#params('LayerNorm.forwardTensor');
    const src = Tensor.unwrap(fn, 'input', input, this.runtime);
    const dst = Tensor.unwrap(fn, 'output', output, this.runtime);
    if (src.d !== this.d || dst.d !== this.d) {
      throw new RangeError(`${fn}: tensors must have d = ${this.d}, got input d = ${src.d} and output d = ${dst.d}`);
    }
    if (src.kind.dtype !== this.dtype || dst.kind.dtype !== this.dtype) {
      throw new TypeError(
        `${fn}: this ${this.#what} takes ${this.dtype} tensors, got input ${src.kind.dtype} and output ${dst.kind.dtype}`,
      );
    }
    if (src.rows !== dst.rows) {
      throw new RangeError(`${fn}: output must have as many rows as input (${src.rows}), got ${dst.rows}`);
    }
    if (src.rows === 0) return;
    this.runtime.executor.direct(this.#tensorCall, src.rows, src.address, dst.address, params);
  }
}
