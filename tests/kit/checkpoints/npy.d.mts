export const NPY_MAGIC: Uint8Array;
export function npyHeader(shape: readonly number[], descr?: '<f4' | '<f8' | '<f2'): Uint8Array;
export function npy(data: Float32Array | Float64Array | Uint16Array, shape?: readonly number[]): Uint8Array;
export function rawNpy(dict: string, data: Uint8Array, version?: 1 | 2): Uint8Array;
export function npyExact(header: string, data?: Uint8Array): Uint8Array;
