export function float16Bits(values: ArrayLike<number>): Uint16Array;
export function float16Values(bits: Uint16Array): Float32Array;
export function bfloat16Bits(values: ArrayLike<number>): Uint16Array;
export function bfloat16Values(bits: Uint16Array): Float32Array;
