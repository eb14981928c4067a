// The memcpy limit: a hand-assembled wasm module exporting copy(dst, src, n) = memory.copy, and the
// `limit:memcpy` candidate that copies one shape's input inside that module's memory.

export function memcpyModuleBytes() {
  // prettier-ignore
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version 1
    0x01, 0x07, 0x01, 0x60, 0x03, 0x7f, 0x7f, 0x7f, 0x00, // type: (i32 i32 i32) -> ()
    0x03, 0x02, 0x01, 0x00, // function section: 1 function of type 0
    0x05, 0x03, 0x01, 0x00, 0x01, // memory section: 1 memory, min 1 page, no max
    0x07, 0x11, 0x02, // export section, 2 exports
    0x04, 0x63, 0x6f, 0x70, 0x79, 0x00, 0x00, // "copy" func 0
    0x06, 0x6d, 0x65, 0x6d, 0x6f, 0x72, 0x79, 0x02, 0x00, // "memory" memory 0
    0x0a, 0x0e, 0x01, 0x0c, 0x00, // code section, 1 body of 12 bytes, 0 locals
    0x20, 0x00, 0x20, 0x01, 0x20, 0x02, // local.get 0, 1, 2
    0xfc, 0x0a, 0x00, 0x00, // memory.copy mem 0 -> mem 0
    0x0b, // end
  ]);
}

/** The module's exports: { copy, memory }. */
export async function createMemcpy() {
  const { instance } = await WebAssembly.instantiate(memcpyModuleBytes());
  return instance.exports;
}

/** The `limit:memcpy` candidate for input x (n floats), growing mc's memory to hold two copies. */
export function memcpyCandidate(mc, x) {
  const n = x.length;
  const bytes = n * 4;
  const need = 2 * bytes + 65536;
  const have = mc.memory.buffer.byteLength;
  if (need > have) mc.memory.grow(Math.ceil((need - have) / 65536));
  const dst = bytes + (65536 - (bytes % 65536)); // 64 KiB-aligned destination
  new Float32Array(mc.memory.buffer, 0, n).set(x);
  return {
    id: 'limit:memcpy',
    name: 'limit: wasm memory.copy',
    variant: '-',
    exact: true,
    run: () => mc.copy(dst, 0, bytes),
    result: () => new Float32Array(mc.memory.buffer, dst, n),
  };
}
