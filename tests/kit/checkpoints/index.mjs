// The one set of checkpoint writers the tests import: safetensors, GGUF, .npy and config.json,
// from the bytes up (nothing here imports the package, whose readers these files judge).
export * from './bytes.mjs';
export * from './gguf.mjs';
export * from './models.mjs';
export * from './npy.mjs';
export * from './safetensors.mjs';
