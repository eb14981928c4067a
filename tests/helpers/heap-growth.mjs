// Wasm memory growth on demand, for tests of arguments that view wasm memory (a WasmTensor's
// `view`). Growth detaches every view of the memory, and any allocation may grow it, but only
// rarely does: `growOnAllocate` wraps a runtime's malloc so that, while armed, every allocation
// first grows the memory, by reserving (then releasing) more bytes than are free. White-box: it
// reaches the module through the runtime's internal `heap`. Plain ESM so the Vitest suites and the
// standalone fuzz script (web/scripts/fuzz.mjs) share it.
import { loadModule } from '../../dist/loader.js';
import { Runtime } from '../../dist/core/runtime.js';

/** A runtime with a wasm memory of its own, at its initial size (init() shares one per backend). */
export async function freshRuntime(backend = 'simd') {
  return new Runtime(await loadModule(backend), backend);
}

/** Bytes of wasm memory the runtime has now. */
export function memoryBytes(rt) {
  return rt.heap.module.HEAPU8.length;
}

/**
 * Leaves less than 4 KiB of the runtime's wasm memory free (without freeing anything it holds), so
 * that any larger allocation, the core's own included, must grow the memory. The blocks stay
 * allocated: use it on a runtime of its own.
 */
export function fillMemory(rt) {
  const module = rt.heap.module;
  const size = 1 << 20;
  for (;;) {
    const length = module.HEAPU8.length;
    const p = module._malloc(size);
    if (p === 0) throw new Error('fillMemory: wasm memory cannot grow any more');
    if (module.HEAPU8.length !== length) {
      // This block grew the memory: what lies past it is all that is free.
      module._malloc(module.HEAPU8.length - (p + size) - 4096);
      return;
    }
  }
}

/** Whether the runtime's wasm memory grew (its buffer was replaced) while `call` ran. */
export function grewDuring(rt, call) {
  const before = rt.heap.module.HEAPU8.buffer;
  call();
  return rt.heap.module.HEAPU8.buffer !== before;
}

export function growOnAllocate(rt) {
  const module = rt.heap.module;
  const malloc = module._malloc;
  let armed = false;
  let growths = 0;
  module._malloc = (bytes) => {
    if (armed) {
      const before = module.HEAPU8.buffer;
      // All free memory lies below the memory's size minus what is in use, so this cannot fit.
      const filler = malloc(module.HEAPU8.length - module._heapInUse() + 1);
      if (filler !== 0) module._free(filler);
      if (module.HEAPU8.buffer !== before) growths++;
    }
    return malloc(bytes);
  };
  return {
    /** How many allocations grew memory so far. */
    get growths() {
      return growths;
    },
    /** Runs `call` with every allocation growing memory; returns what it returns. */
    during(call) {
      armed = true;
      try {
        return call();
      } finally {
        armed = false;
      }
    },
    restore() {
      module._malloc = malloc;
    },
  };
}
