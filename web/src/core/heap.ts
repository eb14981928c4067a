/**
 * Ownership of wasm memory. Every allocation goes through `allocate`, which turns malloc's null
 * into a RangeError, and every view of the heap is taken fresh: memory growth detaches old views,
 * including a caller's arguments that view wasm memory (a WasmTensor's `view`), which `allocate`
 * re-derives when it is handed them.
 */
import { RULES } from '../checks/rules.js';
import type { LayerNormModule } from '../wasm/module.js';

/** wasm32 memory limit of these builds (-sMAXIMUM_MEMORY=2GB). */
export const MAX_WASM_BYTES = 2 ** 31;

/** layernorm::Status::kOutOfMemory (cpp/include/layernorm/layernorm.h). */
export const OUT_OF_MEMORY = 14;

/** The typed arrays a call takes, as `allocate` may re-derive them. */
type CallArray = Float32Array | Float64Array | Uint16Array | (ArrayBufferView & { length: number });
/** A call's typed-array arguments by name, as `allocate` may re-derive them. */
export type CallArrays = Record<string, CallArray | null>;

export class Heap {
  constructor(readonly module: LayerNormModule) {}

  /**
   * Reserves `bytes` and returns the address. The allocation may grow wasm memory, which detaches
   * every view of it: each of `args` that views this memory is then replaced (in `args`) by a view
   * of the same bytes in the grown memory, so a call can allocate first and read its arguments
   * after. Arrays elsewhere are left as they are.
   */
  allocate(bytes: number, what: string, args?: CallArrays): number {
    if (args === undefined) return this.#malloc(bytes, what);
    const memory = this.module.HEAPF32.buffer;
    // A view reads byteOffset 0 and length 0 once detached: record them before allocating.
    const inMemory: [string, CallArray, number, number][] = [];
    for (const [name, a] of Object.entries(args)) {
      if (a !== null && a.buffer === memory) inMemory.push([name, a, a.byteOffset, a.length]);
    }
    const ptr = this.#malloc(bytes, what);
    const grown = this.module.HEAPF32.buffer;
    if (grown !== memory) {
      for (const [name, a, byteOffset, length] of inMemory) {
        const View = a.constructor as new (buffer: ArrayBufferLike, byteOffset: number, length: number) => CallArray;
        args[name] = new View(grown, byteOffset, length);
      }
    }
    return ptr;
  }

  #malloc(bytes: number, what: string): number {
    if (bytes > MAX_WASM_BYTES) {
      throw new RangeError(
        `${what} needs ${formatBytes(bytes)} of wasm memory, more than the module can ever hold (${formatBytes(MAX_WASM_BYTES)})`,
      );
    }
    // A size that is not a whole number of bytes (NaN, fractional, negative) is a façade defect, a
    // wrapped or mistaken computation, never passed on to malloc, whose size_t reads it modulo 2^32.
    if (!Number.isSafeInteger(bytes) || bytes < 0) {
      throw new Error(`${what}: a size of ${bytes} bytes, which is not a whole number of bytes: a defect`);
    }
    const ptr = this.module._malloc(Math.max(bytes, 1));
    if (ptr === 0) {
      throw new RangeError(
        `${what} needs ${formatBytes(bytes)} of wasm memory, but only ${formatBytes(MAX_WASM_BYTES - this.module.HEAPU8.length)} more can be reserved (limit ${formatBytes(MAX_WASM_BYTES)}); use smaller inputs or process them in parts`,
      );
    }
    return ptr;
  }

  free(ptr: number): void {
    if (ptr !== 0) this.module._free(ptr);
  }

  f32(ptr: number, length: number): Float32Array {
    return new Float32Array(this.module.HEAPF32.buffer, ptr, length);
  }

  f64(ptr: number, length: number): Float64Array {
    return new Float64Array(this.module.HEAPF64.buffer, ptr, length);
  }

  u16(ptr: number, length: number): Uint16Array {
    return new Uint16Array(this.module.HEAPU8.buffer, ptr, length);
  }

  /** Copies a Float32Array into the heap at ptr. */
  write(ptr: number, data: Float32Array): void {
    this.module.HEAPF32.set(data, ptr >>> 2);
  }

  /** Copies activations' storage (floats, or 16-bit patterns) into the heap at ptr. */
  writeUnits(ptr: number, data: Float32Array | Uint16Array): void {
    if (data instanceof Float32Array) this.module.HEAPF32.set(data, ptr >>> 2);
    else new Uint16Array(this.module.HEAPU8.buffer).set(data, ptr >>> 1);
  }

  /** A view of `length` storage units at ptr, of the same type as `like`. */
  units(like: Float32Array | Uint16Array, ptr: number, length: number): Float32Array | Uint16Array {
    return like instanceof Float32Array ? this.f32(ptr, length) : this.u16(ptr, length);
  }

  /**
   * A status from the core. The bindings call the core's entry points that trust their call (the
   * façade checked every rule first), so the one status a call can meet is what only the run
   * knows: no memory for a 16-bit row's staging. Any other would be a defect of the façade's checks,
   * and says so (the core's own wording of its statuses is for C++ users, not in the module).
   */
  check(status: number, fn: string): void {
    if (status === 0) return;
    if (status === OUT_OF_MEMORY) throw new RangeError(RULES.coreOutOfMemory(fn));
    throw new Error(`${fn}: the core refused a call the checks had passed (layernorm::Status ${status}): a defect`);
  }
}

export function formatBytes(n: number): string {
  // A size from a stated shape (allocate's rows × d) may be past what a double counts exactly.
  if (!(n <= Number.MAX_SAFE_INTEGER)) return 'more than 2^53 bytes';
  if (n >= 2 ** 30) return `${(n / 2 ** 30).toFixed(2)} GiB`;
  if (n >= 2 ** 20) return `${(n / 2 ** 20).toFixed(1)} MiB`;
  if (n >= 2 ** 10) return `${(n / 2 ** 10).toFixed(1)} KiB`;
  return `${n} bytes`;
}
