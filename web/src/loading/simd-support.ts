/**
 * Whether this engine runs WebAssembly SIMD128, asked the only way that cannot be wrong: by
 * validating a tiny module that uses it. Our own 34 bytes instead of a dependency, so the
 * package's entry has no bare import besides its own name (import maps, CDNs) and nothing to
 * install from a registry.
 */

// (module (func (result v128) (f64x2.promote_low_f32x4 (f32x4.splat (f32.const 0)))))
// f64x2.promote_low_f32x4 is one of the instructions the SIMD kernel's float64 statistics use,
// and one of the last given its final opcode: engines that shipped only an early draft of
// SIMD128 (with other opcode numbers) reject the probe and get the scalar build.
// prettier-ignore
const PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // "\0asm", version 1
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b, //       type section: one type, () -> v128
  0x03, 0x02, 0x01, 0x00, //                         function section: one function of type 0
  0x0a, 0x0d, 0x01, 0x0b, 0x00, //                   code section: one body of 11 bytes, no locals
  0x43, 0x00, 0x00, 0x00, 0x00, //                   f32.const 0
  0xfd, 0x13, //                                     f32x4.splat
  0xfd, 0x5f, //                                     f64x2.promote_low_f32x4
  0x0b, //                                           end
]);

let cached: boolean | undefined;

export function simdSupported(): boolean {
  if (cached === undefined) {
    try {
      cached = typeof WebAssembly === 'object' && WebAssembly.validate(PROBE);
    } catch {
      cached = false;
    }
  }
  return cached;
}
