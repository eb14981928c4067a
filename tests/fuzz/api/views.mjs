// Arguments of the api target that stand for views of wasm memory: the generators place them, the
// context turns them into real views of its pool tensor when a call reaches them.
import fc from 'fast-check';

/** The runtime's chunk is 65,536 floats: a row one wider takes the allocating path. */
export const WIDE = (1 << 16) + 1;
/** Floats of the tensor that wasm-backed arguments view: room for three overlapping wide rows. */
export const POOL = 3 * WIDE + 64;

/** Units of each kind of view that the pool tensor (POOL floats) holds. */
const POOL_UNITS = { f32: POOL, u16: 2 * POOL, f64: Math.floor(POOL / 2) - 1 };

/**
 * An argument that views wasm memory: `length` units of a `type` view ('f32', 'u16', 'f64') at
 * unit `at` of the context's pool tensor.
 */
export class WasmView {
  constructor(at, length, type = 'f32') {
    this.type = type;
    this.at = Math.max(0, Math.min(at, POOL_UNITS[type] - length));
    this.length = length;
  }
  [fc.toStringMethod]() {
    return `wasmView(${this.at}, ${this.length}${this.type === 'f32' ? '' : `, ${this.type}`})`;
  }
}

/** An argument that is a view of wasm memory taken before memory last grew: detached. */
export class StaleView {
  [fc.toStringMethod]() {
    return 'staleWasmView';
  }
}

export function isRecord(v) {
  return v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype;
}

export function usesWasmMemory(v, depth = 3) {
  if (v instanceof WasmView) return true;
  return depth > 0 && isRecord(v) && Object.values(v).some((w) => usesWasmMemory(w, depth - 1));
}
