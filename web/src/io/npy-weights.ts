/**
 * Weights from .npy files: a { gamma, beta } pair, or one gain alone. Loaded only for .npy weights
 * (most pages load a safetensors checkpoint).
 */

import { NORMS } from '../norms.js';
import { byteSourceFor, type ByteSource, type ByteSourceOptions } from './byte-source.js';
import type { ModelConfig } from './config.js';
import { applyGain, gainRule } from './convention.js';
import { FormatError } from './errors.js';
import type { LoadWeightsOptions, NpyPairSource } from './load-types.js';
import { evidenceFor, refusal, warningsFor, type Accept } from './norm-choice.js';
import { decideNorm, NO_EVIDENCE } from './norm-kind.js';

/** Reads a 1-D .npy through a byte source: preamble, header, then exactly the data. */
async function readNpyVector(source: ByteSource): Promise<{ data: Float32Array; dtype: string }> {
  // The .npy reader is loaded only for .npy weights.
  const { decodeNpyData, readNpyHeaderFrom } = await import('./npy.js');
  const header = await readNpyHeaderFrom(source);
  if (header.shape.length !== 1) {
    throw new FormatError('npy', `expected a vector of shape (d,), got shape (${header.shape.join(', ')})`, {
      source: source.describe,
    });
  }
  const byteLength = header.count * header.itemSize;
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

/** γ (and β) from .npy files, as loadNormWeights returns them, the norm decided by the config. */
export async function loadNpyPair(
  pair: NpyPairSource,
  options: LoadWeightsOptions,
  config: Promise<ModelConfig | null>,
  accept: Accept,
) {
  const hasBeta = pair.beta !== undefined && pair.beta !== null && options.bias !== null;
  const [gOpts, bOpts] = sharedProgress(options, 2);
  const gSrc = byteSourceFor(pair.gamma, gOpts!);
  const bSrc = hasBeta ? byteSourceFor(pair.beta!, bOpts!) : null;
  const [g, b] = await Promise.all([readNpyVector(gSrc), bSrc ? readNpyVector(bSrc) : Promise.resolve(null)]);
  const fail = (problem: string) => new FormatError('npy', problem, { source: gSrc.describe });
  if (b && b.data.length !== g.data.length) {
    throw fail(
      `gamma has ${g.data.length} values but beta (${bSrc!.describe}) has ${b.data.length}; expected equal lengths`,
    );
  }
  const evidence = evidenceFor(NO_EVIDENCE, await config, fail);
  const names = { weight: gSrc.describe, bias: bSrc ? bSrc.describe : null };
  const decided = decideNorm(evidence, b !== null);
  const refused = refusal(accept, decided, names.weight, fail);
  if (refused) throw refused;
  if (!NORMS[decided.norm].bias && b) {
    throw fail(
      `expected a gain only: the config says ${NORMS[decided.norm].name} (${decided.said}), which has no bias, but a beta file was given (${bSrc!.describe})`,
    );
  }
  // The gain given is the family's stored weight (np.save of Gemma's model.norm.weight is w, not 1 + w).
  const rule = gainRule(evidence.family, 'npy');
  const gain = rule === '1' ? 'w' : rule;
  return {
    gamma: applyGain(g.data, gain),
    beta: b ? b.data : null,
    d: g.data.length,
    norm: decided.norm,
    eps: decided.eps,
    architecture: evidence.architecture,
    convention: { family: evidence.family?.name ?? null, gain },
    warnings: warningsFor(evidence, decided, 'npy'),
    names,
    dtype: g.dtype,
    dtypes: { weight: g.dtype, bias: b ? b.dtype : null },
    format: 'npy' as const,
    bytesRead: gSrc.bytesRead + (bSrc?.bytesRead ?? 0),
    source: bSrc ? `${gSrc.describe} + ${bSrc.describe}` : gSrc.describe,
  };
}
