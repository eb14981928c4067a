/** Messages between the page and the large-input worker. */
export type WorkerRequest = {
  type: 'run';
  file: File;
  d: number;
  gamma: Float32Array | null;
  beta: Float32Array | null;
  eps: number;
};

export type WorkerMessage =
  | { type: 'start'; rows: number; d: number; shape: number[]; backend: string; kernel: string }
  | { type: 'progress'; done: number; total: number }
  | {
      type: 'done';
      blob: Blob;
      rows: number;
      d: number;
      shape: number[];
      sample: Float32Array;
      sampleIn: Float32Array;
      sampleRows: number[];
      min: number;
      max: number;
      meanAbs: number;
      nonFinite: number;
      ms: number;
      kernelMs: number;
      bytesIn: number;
    }
  | { type: 'error'; message: string };
