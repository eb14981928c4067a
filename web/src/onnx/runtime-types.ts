/**
 * What capture uses of the caller's onnxruntime module, written as a shape rather than imported:
 * the package neither depends on nor bundles onnxruntime, and `import * as ort from
 * 'onnxruntime-web'` (or 'onnxruntime-node', or 'onnxruntime-web/webgpu') fits it as it is.
 */

/** A tensor as onnxruntime's Tensor holds it. */
export interface OrtTensor {
  readonly type: string;
  readonly dims: readonly number[];
  readonly data: unknown;
}

export interface OrtSession {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  run(feeds: { readonly [name: string]: OrtTensor }): Promise<{ readonly [name: string]: unknown }>;
  release(): Promise<void>;
}

/** The tensor types capture makes feeds of. */
export interface OrtTensorConstructor {
  new (type: 'int64', data: BigInt64Array, dims: readonly number[]): OrtTensor;
  new (type: 'int32', data: Int32Array, dims: readonly number[]): OrtTensor;
  new (type: 'float32', data: Float32Array, dims: readonly number[]): OrtTensor;
  new (type: 'float16', data: Uint16Array, dims: readonly number[]): OrtTensor;
  new (type: 'bool', data: Uint8Array, dims: readonly number[]): OrtTensor;
}

/** The onnxruntime module: `import * as ort from 'onnxruntime-web'` (or onnxruntime-node). */
export interface OnnxRuntime {
  readonly InferenceSession: {
    create(model: Uint8Array, options?: object): Promise<OrtSession>;
  };
  readonly Tensor: OrtTensorConstructor;
}
