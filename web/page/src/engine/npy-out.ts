/**
 * The output as a .npy file, in a module of its own that the engine loads on the first download:
 * the .npy writer stays out of the page's first load.
 */
import { writeNpy, writeNpyHeader } from 'layernorm-wasm/io';

/** A .npy of the whole output, or of a header and the parts a large output was kept in. */
export function npyBlob(shape: number[], data: Float32Array | null, parts: readonly ArrayBufferView[] | null): Blob {
  if (data) return new Blob([writeNpy(data, shape) as Uint8Array<ArrayBuffer>]);
  return new Blob([writeNpyHeader(shape), ...parts!] as BlobPart[]);
}
