/** A file served or read in ranges: its size, and any [start, end) of its bytes. */
export interface VirtualFile {
  readonly size: number;
  slice(start: number, end: number): Uint8Array;
}
export function utf8(s: string): Uint8Array;
export function le16(n: number): Uint8Array;
export function le32(n: number): Uint8Array;
export function le64(n: number | bigint): Uint8Array;
export function concat(parts: Uint8Array[]): Uint8Array;
export function bytesOf(values: ArrayBufferView): Uint8Array;
export function f32Bytes(values: Float32Array): Uint8Array;
export function u16Bytes(bits: Uint16Array): Uint8Array;
export function sparseFile(size: number, segments: Array<{ offset: number; bytes: Uint8Array }>): VirtualFile;
export function bytesFile(bytes: Uint8Array): VirtualFile;
export function toBytes(file: VirtualFile): Uint8Array;
