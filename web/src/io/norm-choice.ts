/**
 * What a load concludes from the evidence, whatever the format: the evidence in the order it
 * counts, the refusal of a norm the caller does not take, and the warnings of a load.
 */

import { NORMS } from '../norms.js';
import type { ModelConfig } from './config.js';
import { unplacedFamily } from './convention.js';
import { configEvidence, NO_EVIDENCE, type NormEvidence, type NormKind } from './norm-kind.js';

/**
 * The evidence a checkpoint offers: its own (a GGUF's metadata: its ε key, read as its family's
 * norm when the table has the family) first, then config.json, then what a GGUF's architecture is
 * known to use (`byArchitecture`; other formats name none).
 */
export function evidenceFor(
  own: NormEvidence,
  config: ModelConfig | null,
  fail: (p: string) => Error,
  byArchitecture: (architecture: string | null) => NormEvidence = () => NO_EVIDENCE,
): NormEvidence {
  const fromConfig = configEvidence(config, fail);
  const about = {
    architecture: own.architecture ?? fromConfig.architecture,
    family: own.family ?? fromConfig.family,
    named: own.named ?? fromConfig.named,
  };
  if (own.layernorm || own.rmsnorm) return { ...own, ...about };
  if (fromConfig.layernorm || fromConfig.rmsnorm) return { ...fromConfig, ...about };
  return { ...byArchitecture(own.architecture), ...about };
}

/** The warnings of a load: a family the checkpoint names that the table does not have. */
export function warningsFor(
  evidence: NormEvidence,
  decided: { norm: NormKind; said: string | null },
  format: 'safetensors' | 'gguf' | 'npy',
): string[] {
  if (evidence.family !== null || evidence.named === null) return [];
  return [unplacedFamily(evidence.named, decided.norm, decided.said, format)];
}

/** Which kinds the caller takes: loadLayerNormWeights refuses another norm before reading its data. */
export type Accept = NormKind | 'any';

/** The refusal of a norm the caller does not take, or null when it takes it. */
export function refusal(
  accept: Accept,
  decided: { norm: NormKind; said: string | null },
  weight: string,
  fail: (p: string) => Error,
): Error | null {
  if (accept === 'any' || decided.norm === accept) return null;
  const got = NORMS[decided.norm].name;
  return fail(
    `expected a ${NORMS[accept].name}, got an ${got}: "${weight}" is the gain of an ${got} (${decided.said}); ` +
      'load it with loadNormWeights, which returns either kind',
  );
}
