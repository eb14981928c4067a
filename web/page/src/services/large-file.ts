/**
 * A large .npy file (read in slices) becomes the activations only once the engine has normalized
 * it: until then its description waits here, between the activations service that read its header
 * and the output service that runs it.
 */
import type { ActivationsInfo } from '../engine/protocol';
import type { PageState } from '../state';

export interface PendingActivations {
  /** The large file being normalized for the first time; null when none is. */
  info: ActivationsInfo | null;
}

/**
 * What the activations card says when new activations could not be had: the error (the previous
 * activations, if any, stay), and a large file's run marked failed.
 */
export function activationsFailed(s: Readonly<PageState>, text: string): Pick<PageState, 'actMessage' | 'large'> {
  const large = s.large;
  return {
    actMessage: {
      kind: 'error',
      text: s.activations ? `${text} The page keeps the previous activations.` : text,
    },
    large: large && large.status === 'running' ? { ...large, status: 'failed', message: text } : large,
  };
}
