/// <reference lib="webworker" />
/**
 * Large-input worker: streams a .npy file in slices of rows through the wasm LayerNorm, so the page
 * stays responsive. The output is kept as a Blob (a valid .npy) and a sample of rows is transferred
 * back for the heatmap.
 */
import { decodeNpyData, init, readNpyHeader } from 'layernorm-wasm';
import type { WorkerRequest, WorkerMessage } from './protocol';

declare const self: DedicatedWorkerGlobalScope;

const post = (m: WorkerMessage, transfer: Transferable[] = []) => self.postMessage(m, transfer);
const SAMPLE_ROWS = 128;
const CHUNK_BYTES = 4 << 20;

function npyHeader(shape: number[]): Uint8Array {
  const dims = shape.length === 1 ? `${shape[0]},` : shape.join(', ');
  let h = `{'descr': '<f4', 'fortran_order': False, 'shape': (${dims}), }`;
  const pad = (64 - ((10 + h.length + 1) % 64)) % 64;
  h += ' '.repeat(pad) + '\n';
  const out = new Uint8Array(10 + h.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, h.length & 0xff, h.length >> 8]);
  for (let i = 0; i < h.length; i++) out[10 + i] = h.charCodeAt(i);
  return out;
}

async function run(req: Extract<WorkerRequest, { type: 'run' }>): Promise<void> {
  const t0 = performance.now();
  const rt = await init();
  const { file, d, eps } = req;
  const head = await readNpyHeader(file);
  const last = head.shape[head.shape.length - 1];
  if (head.shape.length === 0 || last !== d) {
    throw new Error(
      `${file.name}: shape [${head.shape.join(', ')}] does not match the weights: the last axis must be d = ${d}`,
    );
  }
  const itemSize = head.itemSize;
  const rows = head.shape.slice(0, -1).reduce((a, b) => a * b, 1);
  post({ type: 'start', rows, d, shape: head.shape, backend: rt.backend, kernel: rt.kernel });
  const chunkRows = Math.max(1, Math.floor(CHUNK_BYTES / (d * itemSize)));
  const parts: BlobPart[] = [npyHeader(head.shape) as Uint8Array<ArrayBuffer>];
  const sampleN = Math.min(SAMPLE_ROWS, rows);
  const sampleRows = Array.from({ length: sampleN }, (_, i) => Math.floor((i * rows) / sampleN));
  const sample = new Float32Array(sampleN * d);
  const sampleIn = new Float32Array(sampleN * d);
  let si = 0;
  let min = Infinity;
  let max = -Infinity;
  let sumAbs = 0;
  let nonFinite = 0;
  let kernelMs = 0;
  const layer = rt.createLayerNorm(d, { gamma: req.gamma, beta: req.beta, eps });
  try {
    for (let r0 = 0; r0 < rows; r0 += chunkRows) {
      const n = Math.min(chunkRows, rows - r0);
      const start = head.dataOffset + r0 * d * itemSize;
      const buf = await file.slice(start, start + n * d * itemSize).arrayBuffer();
      const x = decodeNpyData(new Uint8Array(buf), head.dtype, n * d);
      const k0 = performance.now();
      const y = layer.forward(x);
      kernelMs += performance.now() - k0;
      for (let i = 0; i < y.length; i++) {
        const v = y[i]!;
        if (Number.isFinite(v)) {
          if (v < min) min = v;
          if (v > max) max = v;
          sumAbs += Math.abs(v);
        } else nonFinite++;
      }
      while (si < sampleN && sampleRows[si]! < r0 + n) {
        const local = sampleRows[si]! - r0;
        sample.set(y.subarray(local * d, local * d + d), si * d);
        sampleIn.set(x.subarray(local * d, local * d + d), si * d);
        si++;
      }
      parts.push(y as Float32Array<ArrayBuffer>);
      post({ type: 'progress', done: r0 + n, total: rows });
    }
  } finally {
    layer.dispose();
  }
  const blob = new Blob(parts, { type: 'application/octet-stream' });
  post(
    {
      type: 'done',
      blob,
      rows,
      d,
      shape: head.shape,
      sample,
      sampleIn,
      sampleRows,
      min,
      max,
      meanAbs: sumAbs / Math.max(1, rows * d - nonFinite),
      nonFinite,
      ms: performance.now() - t0,
      kernelMs,
      bytesIn: rows * d * itemSize,
    },
    [sample.buffer, sampleIn.buffer],
  );
}

self.onmessage = (e: MessageEvent<WorkerRequest>) => {
  if (e.data.type === 'run') {
    run(e.data).catch((err: unknown) =>
      post({ type: 'error', message: err instanceof Error ? err.message : String(err) }),
    );
  }
};
