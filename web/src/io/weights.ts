/**
 * loadLayerNormWeights: the gain and bias of one LayerNorm from a checkpoint, reading only the
 * header and the two tensors' bytes.
 */

import { openByteSource, type ByteSource, type ByteSourceInput, type ByteSourceOptions } from './byte-source.js';
import { FormatError, type FileFormat } from './errors.js';
import { readGgufIndex } from './gguf.js';
import { decodeNpyData, isNpy, npyHeaderLength, parseNpyHeader } from './npy.js';
import { readSafetensorsIndex } from './safetensors.js';
import { decodeTensor, ELEMENT_SIZE, readTensorBytes, type TensorIndex, type TensorInfo } from './tensors.js';

/** GPT-2 small on the Hugging Face Hub; its final LayerNorm is `ln_f.weight` / `ln_f.bias`. */
export const GPT2_SAFETENSORS_URL = 'https://huggingface.co/openai-community/gpt2/resolve/main/model.safetensors';

/** Tried in order when no names are given: Hub GPT-2, PyTorch-prefixed GPT-2, llama.cpp GGUF. */
export const KNOWN_LAYERNORM_NAMES: ReadonlyArray<readonly [string, string]> = [
  ['ln_f.weight', 'ln_f.bias'],
  ['transformer.ln_f.weight', 'transformer.ln_f.bias'],
  ['output_norm.weight', 'output_norm.bias'],
];

/** Two separate .npy files, e.g. exported with np.save('gamma.npy', ln.weight.detach().numpy()). */
export interface NpyPairSource {
  gamma: ByteSourceInput;
  /** null or omitted: no bias. */
  beta?: ByteSourceInput | null;
}

export type WeightsSource = ByteSourceInput | NpyPairSource;

export interface LoadWeightsOptions extends ByteSourceOptions {
  /** Name of the gain tensor in the checkpoint. */
  weight?: string;
  /** Name of the bias tensor; null loads the gain only. Omitted: the gain's sibling, if any. */
  bias?: string | null;
  /** Skip detection by magic bytes. */
  format?: 'safetensors' | 'gguf' | 'npy';
}

export interface LayerNormWeights {
  gamma: Float32Array;
  beta: Float32Array | null;
  d: number;
  /** Tensor names used (for .npy pairs, the files). */
  names: { weight: string; bias: string | null };
  /** Stored dtype of the gain, e.g. "F32", "F16", "BF16" (npy: "float32" …). */
  dtype: string;
  dtypes: { weight: string; bias: string | null };
  format: 'safetensors' | 'gguf' | 'npy';
  /** Bytes actually read from the file(s) or network. */
  bytesRead: number;
  /** The URL, file name or buffer description. */
  source: string;
}

function isNpyPair(value: unknown): value is NpyPairSource {
  return (
    typeof value === 'object' &&
    value !== null &&
    !ArrayBuffer.isView(value) &&
    !(value instanceof ArrayBuffer) &&
    !(typeof Blob !== 'undefined' && value instanceof Blob) &&
    !(value instanceof URL) &&
    'gamma' in value
  );
}

/** The bias that goes with a gain: `x.weight` → `x.bias`, `x.gamma` → `x.beta`. */
function siblingBias(weight: string): string[] {
  const out: string[] = [];
  if (/weight$/.test(weight)) out.push(weight.replace(/weight$/, 'bias'));
  if (/gamma$/.test(weight)) out.push(weight.replace(/gamma$/, 'beta'));
  return out;
}

function listNames(names: string[], max = 20): string {
  const shown = names
    .slice(0, max)
    .map((n) => `"${n}"`)
    .join(', ');
  return names.length > max ? `${shown}, … (${names.length} in all)` : shown || '(none)';
}

export function resolveLayerNormNames(
  index: TensorIndex,
  options: { weight?: string; bias?: string | null },
  fail: (problem: string) => Error,
): { weight: string; bias: string | null } {
  const all = [...index.tensors.keys()];
  const candidates = all.filter((n) => /norm|(^|\.)ln_f\./i.test(n) && /(weight|gamma|scale)$/.test(n));
  const pickBias = (weight: string): string | null => {
    if (options.bias === null) return null;
    if (typeof options.bias === 'string') {
      if (!index.tensors.has(options.bias)) {
        throw fail(
          `no tensor named "${options.bias}" (bias); candidates: ${listNames(all.filter((n) => /bias|beta/.test(n)))}`,
        );
      }
      return options.bias;
    }
    return siblingBias(weight).find((n) => index.tensors.has(n)) ?? null;
  };
  if (options.weight !== undefined) {
    if (!index.tensors.has(options.weight)) {
      throw fail(
        `no tensor named "${options.weight}" (weight); candidates: ${listNames(candidates.length ? candidates : all)}`,
      );
    }
    return { weight: options.weight, bias: pickBias(options.weight) };
  }
  for (const [weight] of KNOWN_LAYERNORM_NAMES) {
    if (index.tensors.has(weight)) return { weight, bias: pickBias(weight) };
  }
  const oneDim = candidates.filter((n) => index.tensors.get(n)!.shape.length === 1);
  if (oneDim.length === 1) return { weight: oneDim[0]!, bias: pickBias(oneDim[0]!) };
  throw fail(
    oneDim.length > 1
      ? `cannot tell which LayerNorm to load; candidates: ${listNames(oneDim)}; pass { weight, bias } to choose`
      : `no LayerNorm tensors found (looked for ${KNOWN_LAYERNORM_NAMES.map(([w]) => w).join(', ')} or a single *norm*/ln_f weight); tensors: ${listNames(all)}`,
  );
}

function checkVector(info: TensorInfo, format: FileFormat, fail: (p: string) => Error): number {
  if (ELEMENT_SIZE[info.dtype] === undefined) {
    throw fail(`tensor "${info.name}" has dtype ${info.dtype}; expected F32, F16 or BF16`);
  }
  if (info.shape.length !== 1) {
    throw fail(`tensor "${info.name}" has shape [${info.shape.join(', ')}]; expected a vector [d]`);
  }
  if (format === 'gguf' && info.dtype === 'F64') throw fail(`tensor "${info.name}" has dtype F64; expected F32 or F16`);
  return info.shape[0]!;
}

async function loadFromCheckpoint(
  source: ByteSource,
  first: Uint8Array,
  format: 'safetensors' | 'gguf',
  options: LoadWeightsOptions,
): Promise<LayerNormWeights> {
  const index = format === 'gguf' ? await readGgufIndex(source, first) : await readSafetensorsIndex(source, first);
  const fail = (problem: string) => new FormatError(format, problem, { source: source.describe });
  const names = resolveLayerNormNames(index, options, fail);
  const wInfo = index.tensors.get(names.weight)!;
  const bInfo = names.bias !== null ? index.tensors.get(names.bias)! : null;
  const d = checkVector(wInfo, format, fail);
  if (bInfo) {
    const db = checkVector(bInfo, format, fail);
    if (db !== d)
      throw fail(`gain "${wInfo.name}" has ${d} values but bias "${bInfo.name}" has ${db}; expected equal lengths`);
  }
  const infos = bInfo ? [wInfo, bInfo] : [wInfo];
  const bytes = await readTensorBytes(source, infos, index.prefix);
  return {
    gamma: decodeTensor(bytes[0]!, wInfo.dtype, d),
    beta: bInfo ? decodeTensor(bytes[1]!, bInfo.dtype, d) : null,
    d,
    names,
    dtype: wInfo.dtype,
    dtypes: { weight: wInfo.dtype, bias: bInfo?.dtype ?? null },
    format,
    bytesRead: source.bytesRead,
    source: source.describe,
  };
}

/** Reads a 1-D .npy through a byte source: preamble, header, then exactly the data. */
async function readNpyVector(source: ByteSource): Promise<{ data: Float32Array; dtype: string }> {
  const fail = (problem: string) => new FormatError('npy', problem, { source: source.describe });
  if (source.size !== undefined && source.size < 12) throw fail(`expected a .npy file, got ${source.size} bytes`);
  const preamble = await source.read(0, 12);
  const headerEnd = npyHeaderLength(preamble, source.describe);
  if (source.size !== undefined && headerEnd > source.size) {
    throw fail(`header length ${headerEnd} is larger than the ${source.size}-byte file`);
  }
  const rest = await source.read(12, headerEnd - 12);
  const headerBytes = new Uint8Array(headerEnd);
  headerBytes.set(preamble, 0);
  headerBytes.set(rest, 12);
  const header = parseNpyHeader(headerBytes, source.describe);
  if (header.shape.length !== 1) {
    throw fail(`expected a vector of shape (d,), got shape (${header.shape.join(', ')})`);
  }
  const byteLength = header.count * header.itemSize;
  if (source.size !== undefined && source.size !== header.dataOffset + byteLength) {
    throw fail(
      `shape (${header.count},) of ${header.dtype} needs ${byteLength} data bytes, the file has ${source.size - header.dataOffset}`,
    );
  }
  const data = decodeNpyData(await source.read(header.dataOffset, byteLength), header.dtype, header.count);
  return { data, dtype: header.dtype };
}

/** Progress over several sources reported as one total. */
function sharedProgress(options: LoadWeightsOptions, count: number): ByteSourceOptions[] {
  const read = new Array<number>(count).fill(0);
  const expected = new Array<number>(count).fill(0);
  const sum = (a: number[]) => a.reduce((x, y) => x + y, 0);
  return read.map((_, i) => ({
    ...options,
    onProgress: options.onProgress
      ? (r: number, e: number) => {
          read[i] = r;
          expected[i] = e;
          options.onProgress!(sum(read), sum(expected));
        }
      : undefined,
  }));
}

async function loadNpyPair(pair: NpyPairSource, options: LoadWeightsOptions): Promise<LayerNormWeights> {
  if (options.bias !== undefined && options.bias !== null) {
    throw new TypeError('loadLayerNormWeights: options.bias names a tensor, but a .npy pair has no tensor names');
  }
  const hasBeta = pair.beta !== undefined && pair.beta !== null && options.bias !== null;
  const [gOpts, bOpts] = sharedProgress(options, 2);
  const gSrc = openByteSource(pair.gamma, gOpts);
  const bSrc = hasBeta ? openByteSource(pair.beta!, bOpts) : null;
  const [g, b] = await Promise.all([readNpyVector(gSrc), bSrc ? readNpyVector(bSrc) : Promise.resolve(null)]);
  if (b && b.data.length !== g.data.length) {
    throw new FormatError(
      'npy',
      `gamma has ${g.data.length} values but beta (${bSrc!.describe}) has ${b.data.length}; expected equal lengths`,
      { source: gSrc.describe },
    );
  }
  return {
    gamma: g.data,
    beta: b ? b.data : null,
    d: g.data.length,
    names: { weight: gSrc.describe, bias: bSrc ? bSrc.describe : null },
    dtype: g.dtype,
    dtypes: { weight: g.dtype, bias: b ? b.dtype : null },
    format: 'npy',
    bytesRead: gSrc.bytesRead + (bSrc?.bytesRead ?? 0),
    source: bSrc ? `${gSrc.describe} + ${bSrc.describe}` : gSrc.describe,
  };
}

/**
 * Loads a LayerNorm's gain and bias from safetensors, GGUF or .npy, reading only the header and
 * the two tensors (a few KB for GPT-2's ln_f out of a 548 MB checkpoint).
 *
 * `source`: an http(s) URL (read with Range requests), a Blob/File (in Node, fs.openAsBlob), an
 * ArrayBuffer/Uint8Array, or `{ gamma, beta }` of .npy sources.
 */
export async function loadLayerNormWeights(
  source: WeightsSource,
  options: LoadWeightsOptions = {},
): Promise<LayerNormWeights> {
  if (isNpyPair(source)) return loadNpyPair(source, options);
  const bytes = openByteSource(source, options);
  const fail = (problem: string) =>
    new FormatError(options.format ?? 'safetensors', problem, { source: bytes.describe });
  if (bytes.size !== undefined && bytes.size < 8) throw fail(`expected a weights file, got ${bytes.size} bytes`);
  const first = await bytes.read(0, 8);
  const format =
    options.format ??
    (first[0] === 0x47 && first[1] === 0x47 && first[2] === 0x55 && first[3] === 0x46
      ? 'gguf'
      : isNpy(first)
        ? 'npy'
        : 'safetensors');
  if (format === 'npy') {
    if (options.bias !== undefined && options.bias !== null) {
      throw new TypeError('loadLayerNormWeights: a single .npy holds the gain only; pass { gamma, beta } for a pair');
    }
    const result = await loadNpyPair({ gamma: source, beta: null }, options);
    // The format sniff above was a read too.
    return { ...result, bytesRead: result.bytesRead + bytes.bytesRead };
  }
  return loadFromCheckpoint(bytes, first, format, options);
}
