/** Where the activations come from: generated here, or parsed from text and files (files.ts, loaded when first needed). */
import { InputError, MAX_GENERATED_ROWS, memorySource, type Source } from './held';
import type { ActivationSource } from './protocol';
import { gpt2LikeActivations } from './sample';

function generated(src: Extract<ActivationSource, { kind: 'generate' }>): Source {
  const { B, T, seed, d } = src;
  for (const [name, v, max] of [
    ['B', B, 64],
    ['T', T, 4096],
  ] as const) {
    if (!Number.isInteger(v) || v < 1 || v > max) {
      throw new InputError(`${name} must be a whole number from 1 to ${max}, got ${v}.`);
    }
  }
  if (B * T > MAX_GENERATED_ROWS) {
    throw new InputError(
      `B·T must be at most ${MAX_GENERATED_ROWS.toLocaleString('en-US')}, got ${B}·${T} = ${B * T}.`,
    );
  }
  return memorySource(gpt2LikeActivations(B, T, d, seed), [B, T, d], {
    label: `generated GPT-2-like sample (seed ${seed})`,
    origin: 'generated',
    bytes: B * T * d * 4,
    dtype: 'float32',
    tokens: null,
    tokensNote: null,
    gen: { B, T, seed },
  });
}

/**
 * Reads activations from any source the page accepts; throws InputError or the package's
 * FormatError. Parsers for text and files load the first time they are needed.
 */
export async function openSource(src: ActivationSource): Promise<Source> {
  if (src.kind === 'generate') return generated(src);
  const files = await import('./files');
  if (src.kind === 'text') return files.fromText(src.text, src.name, 'pasted');
  return files.fromFiles(src.file, src.tokens);
}
