/** A rows × d tensor in the heap (zeroed at allocation): the zero-copy API's storage. */
import { kindForDType, type ActivationKind } from '../checks/activations.js';
import { describe } from '../errors.js';
import { HeapOwner } from './heap-owner.js';
import type { RuntimeCore } from './runtime-core.js';
import type { DType, TensorArray, WasmTensor } from '../types.js';
import { checkElements, checkNumbers, numberError } from '../checks/validate.js';
import { RULES } from '../checks/rules.js';

export interface TensorAddress {
  address: number;
  rows: number;
  d: number;
  kind: ActivationKind;
}

export class Tensor extends HeapOwner implements WasmTensor<TensorArray> {
  readonly length: number;
  readonly #kind: ActivationKind;

  constructor(
    runtime: RuntimeCore,
    readonly rows: number,
    readonly d: number,
    readonly dtype: DType,
  ) {
    const length = rows * d;
    const kind = kindForDType(dtype);
    const ptr = runtime.heap.allocate(length * kind.bytes, `allocate(${rows}, ${d})`);
    runtime.heap.module.HEAPU8.fill(0, ptr, ptr + length * kind.bytes);
    super(runtime, ptr);
    this.length = length;
    this.#kind = kind;
  }

  static unwrap(fn: string, name: string, t: unknown, runtime: RuntimeCore): TensorAddress {
    if (!(t instanceof Tensor)) throw new TypeError(RULES.mustBe(fn, name, 'a WasmTensor from allocate()', t));
    if (t.runtime !== runtime)
      throw new TypeError(`${fn}: ${name} belongs to a different runtime (another init() backend)`);
    return { address: t.#live(fn), rows: t.rows, d: t.d, kind: t.#kind };
  }

  #live(fn: string): number {
    return this.address(fn, 'WasmTensor');
  }

  #view(fn: string): TensorArray {
    const ptr = this.#live(fn);
    return this.dtype === 'float32' ? this.runtime.heap.f32(ptr, this.length) : this.runtime.heap.u16(ptr, this.length);
  }

  get view(): TensorArray {
    return this.#view('WasmTensor.view');
  }

  set(data: ArrayLike<number>, offset: number = 0): void {
    const fn = 'WasmTensor.set';
    this.#live(fn);
    const values = checkNumbers(fn, 'data', data);
    if (typeof offset !== 'number') throw numberError(fn, 'offset', 'an integer >= 0', offset);
    if (!Number.isInteger(offset) || offset < 0 || offset + values.length > this.length) {
      throw new RangeError(
        `${fn}: ${values.length} values at offset ${describe(offset)} do not fit in a tensor of ${this.length} values`,
      );
    }
    checkElements(fn, 'data', values);
    const units = this.dtype === 'float32' ? values : bitPatterns(fn, this.dtype, values);
    // data may view this memory too (another tensor, or this one): set() copies overlapping ranges
    // as if through a temporary, and nothing here allocates, so no view is detached.
    this.#view(fn).set(units, offset);
  }

  toArray(): TensorArray {
    return this.#view('WasmTensor.toArray').slice();
  }
}

/**
 * A 16-bit tensor stores bit patterns: a Uint16Array or a Float16Array gives its bits as they are;
 * any other values must already be patterns (integers in [0, 65535]), not numbers to convert.
 */
function bitPatterns(fn: string, dtype: DType, values: ArrayLike<number>): ArrayLike<number> {
  if (values instanceof Uint16Array) return values;
  const half = (globalThis as { Float16Array?: new (...a: never[]) => ArrayBufferView }).Float16Array;
  if (half && values instanceof half) {
    if (dtype !== 'float16')
      throw new TypeError(
        `${fn}: a Float16Array cannot fill a ${dtype} tensor; convert it with float32ToHalfBits(Float32Array.from(values), '${dtype}')`,
      );
    const v = values as unknown as Uint16Array;
    return new Uint16Array(v.buffer, v.byteOffset, v.length);
  }
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!(Number.isInteger(v) && v >= 0 && v <= 0xffff)) {
      throw new RangeError(
        `${fn}: a ${dtype} tensor holds bit patterns, so data[${i}] must be an integer in [0, 65535], got ${describe(v)}; convert values with float32ToHalfBits(values, '${dtype}')`,
      );
    }
  }
  return values;
}
