/**
 * What a file's first bytes say it is. Apart from the parsers, so that telling formats apart does
 * not load them: the weights loader imports the GGUF and .npy parsers only for such files.
 */

export const NPY_MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // "\x93NUMPY"

export function isNpy(bytes: Uint8Array): boolean {
  return NPY_MAGIC.every((b, i) => bytes[i] === b);
}

export function isGguf(bytes: Uint8Array): boolean {
  return bytes[0] === 0x47 && bytes[1] === 0x47 && bytes[2] === 0x55 && bytes[3] === 0x46; // "GGUF"
}
