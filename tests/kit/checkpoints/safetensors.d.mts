import type { VirtualFile } from './bytes.mjs';

export interface TensorSpec {
  name: string;
  shape: number[];
}
export interface SafetensorsTensor extends TensorSpec {
  /** F32, F16, BF16, F64, I64 (or any other name, counted as 1 byte per value). */
  dtype: string;
  /** Raw little-endian bytes; omitted tensors read as zeros (a hole in the sparse file). */
  data?: Uint8Array;
}
export interface BuiltFile {
  file: VirtualFile;
  /** Absolute [start, end) of each tensor's bytes. */
  ranges: Map<string, [number, number]>;
  headerLength: number;
}
export function buildSafetensors(tensors: SafetensorsTensor[], metadata?: Record<string, string>): BuiltFile;
export function rawSafetensors(header: string, data?: Uint8Array, declaredLength?: number | bigint): Uint8Array;
