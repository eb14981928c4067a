export type GgufValue =
  | { type: 'u32'; value: number }
  | { type: 'f32'; value: number }
  | { type: 'string'; value: string }
  | { type: 'strings'; value: string[] }
  | { type: 'i32s'; value: number[] };

export interface GgufTensor {
  name: string;
  /** Innermost first, as GGUF stores them. */
  dims: number[];
  /** ggml type code: 0 F32, 1 F16, 2 Q4_0, 28 F64, 30 BF16, … */
  type: number;
  data: Uint8Array;
}

export function ggufString(s: string): Uint8Array;
export function ggufHead(tensors: number, entries: number, version?: number): Uint8Array;
export function buildGguf(
  metadata: Array<[string, GgufValue]>,
  tensors: GgufTensor[],
  options?: { version?: number; alignment?: number },
): Uint8Array;
export function ggufTensorFile(
  name: string,
  dims: number[],
  type: number,
  offset: number,
  dataBytes: number,
): Uint8Array;
