/**
 * What a GGUF says of its norm: its metadata's `general.architecture` and ε keys, and the kind its
 * architecture is known to use. Loaded with GGUF's parser, only for GGUF files.
 */

import { NORMS, type NormKind } from '../norms.js';
import { ggufFamily } from './architectures.js';
import { checkEps, filed, NO_EVIDENCE, type NormClue, type NormEvidence } from './norm-kind.js';
import type { GgufScalar } from './tensors.js';

export { readGgufIndex } from './gguf.js';

export function ggufEvidence(
  metadata: ReadonlyMap<string, GgufScalar> | undefined,
  fail: (problem: string) => Error,
): NormEvidence {
  if (!metadata) return NO_EVIDENCE;
  const arch = metadata.get('general.architecture');
  const architecture = typeof arch === 'string' ? arch : null;
  const lookup = (suffix: string): [string, GgufScalar] | null => {
    if (architecture !== null && metadata.has(`${architecture}.${suffix}`)) {
      return [`${architecture}.${suffix}`, metadata.get(`${architecture}.${suffix}`)!];
    }
    for (const [key, value] of metadata) if (key.endsWith(`.${suffix}`)) return [key, value];
    return null;
  };
  const about = architecture !== null ? `general.architecture "${architecture}", ` : '';
  const clue = (norm: NormKind, suffix: string): NormClue | null => {
    const found = lookup(suffix);
    if (!found) return null;
    const eps = checkEps(found[1], found[0], fail);
    return { norm, eps, said: `${about}${found[0]} = ${eps}` };
  };
  const layernorm = clue('layernorm', 'attention.layer_norm_epsilon');
  const rmsnorm = clue('rmsnorm', 'attention.layer_norm_rms_epsilon');
  const family = ggufFamily(architecture);
  const named = architecture !== null ? `general.architecture "${architecture}"` : null;
  const stated = family?.norm === 'rmsnorm' ? (rmsnorm ?? layernorm) : (layernorm ?? rmsnorm);
  if (family && stated) {
    // The family's code decides the kind; its ε key gives ε. They differ for Phi-3.5-MoE alone,
    // whose LayerNorm llama.cpp's converter files under layer_norm_rms_epsilon.
    const said =
      stated.norm === family.norm
        ? stated.said
        : `${stated.said}, the ε of ${family.name}'s ${NORMS[family.norm].name}`;
    return filed({ norm: family.norm, eps: stated.eps, said }, architecture, family, named);
  }
  return { layernorm, rmsnorm, architecture, family, named };
}

/**
 * For a GGUF that states no ε key: the kind its family uses (a Llama GGUF without
 * `llama.attention.layer_norm_rms_epsilon` still holds RMSNorms). The ε stays unknown unless the
 * family's code fixes it.
 */
export function architectureEvidence(architecture: string | null): NormEvidence {
  const family = ggufFamily(architecture);
  const named = architecture !== null ? `general.architecture "${architecture}"` : null;
  if (family === null) return { ...NO_EVIDENCE, architecture, named };
  const clue: NormClue = {
    norm: family.norm,
    eps: family.fixedEps ?? null,
    said: `general.architecture "${architecture}", which uses ${NORMS[family.norm].name}; the file states no ε`,
  };
  return filed(clue, architecture, family, named);
}
