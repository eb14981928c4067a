export * from './bytes.mjs';
export * from './gguf.mjs';
export * from './models.mjs';
export * from './npy.mjs';
export * from './safetensors.mjs';
