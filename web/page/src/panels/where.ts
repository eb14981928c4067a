/**
 * Where the final norm sits in its model: GPT-2's pipeline for GPT-2's `ln_f`, and the same
 * picture for another checkpoint's final norm, with its own width d and norm (a Llama-family
 * RMSNorm sits in the same place, `model.norm`).
 */
import { DEFAULT_NORM, NORMS } from 'layernorm-wasm';
import type { PageStore, Weights } from '../state';
import { $, el } from '../ui/dom';

interface Step {
  name: string | HTMLElement;
  what: string;
  here?: boolean;
  blocks?: boolean;
}

const code = (text: string) => el('code', text);

/** GPT-2's own weights, or weights in its image (the page's synthetic ones). */
function isGpt2(w: Weights | null): boolean {
  return !w || w.architecture === 'gpt2' || (w.synthetic && w.norm === DEFAULT_NORM);
}

function steps(w: Weights | null): { title: (string | HTMLElement)[]; steps: Step[]; text: (string | HTMLElement)[] } {
  const d = w?.d ?? 768;
  if (isGpt2(w)) {
    return {
      title: ['Where ', code('ln_f'), ' sits in GPT-2'],
      steps: [
        { name: 'Tokens', what: 'T token ids' },
        { name: 'Embeddings', what: `wte + wpe → [T, ${d}]` },
        { name: '12 transformer blocks', what: 'each: ln_1 → attention, +; ln_2 → MLP, +', blocks: true },
        { name: code('ln_f'), what: `this LayerNorm, on every token's final ${d} values`, here: true },
        { name: 'Unembedding', what: '× Wᴇᵀ (tied to wte) → [T, 50257]' },
        { name: 'Logits', what: 'softmax → the next token' },
      ],
      text: [
        code('ln_f'),
        ' is the only LayerNorm outside the blocks. Inside each block, ',
        code('ln_1'),
        ' and ',
        code('ln_2'),
        ' normalize a copy of the residual stream on its way into attention and the MLP; the stream itself is never normalized, so by block 12 a few channels (447, 138, 378) carry values in the hundreds or thousands. ',
        code('ln_f'),
        ' is where they are finally brought to scale before the vocabulary is scored.',
      ],
    };
  }
  const norm = NORMS[w!.norm].name;
  const model = w!.architecture ?? 'this model';
  const tensor = w!.tensor ?? 'the final norm';
  return {
    title: [`Where the final ${norm} sits in ${model}`],
    steps: [
      { name: 'Tokens', what: 'T token ids' },
      { name: 'Embeddings', what: `→ [T, ${d}]` },
      { name: 'Transformer blocks', what: `each: ${norm} → attention, +; ${norm} → MLP, +`, blocks: true },
      { name: code(tensor), what: `this ${norm}, on every token's final ${d} values`, here: true },
      { name: 'Unembedding', what: `[T, ${d}] → [T, vocabulary]` },
      { name: 'Logits', what: 'softmax → the next token' },
    ],
    text: [
      `The final ${norm} (`,
      code(tensor),
      `) sits where GPT-2's `,
      code('ln_f'),
      ` does: after the last block, before the unembedding. Inside each block, ${norm}s normalize a copy of the residual stream on its way into attention and the MLP; the stream itself is only normalized here, once, before the vocabulary is scored.`,
    ],
  };
}

export function mountWhere(store: PageStore): void {
  store.watch(['weights'], (s) => {
    const { title, steps: list, text } = steps(s.weights);
    $('where-h').replaceChildren(...title);
    const pipeline = $('pipeline');
    pipeline.setAttribute('aria-label', `${isGpt2(s.weights) ? 'GPT-2 small' : 'The model'} from tokens to logits`);
    pipeline.replaceChildren(
      ...list.map((step) => {
        const li = el('li', undefined, step.here ? 'here' : step.blocks ? 'blocks' : undefined);
        li.append(el('strong'), el('span', step.what));
        li.firstChild!.appendChild(typeof step.name === 'string' ? document.createTextNode(step.name) : step.name);
        return li;
      }),
    );
    $('where-text').replaceChildren(...text);
    $('where-eq').hidden = !isGpt2(s.weights);
  });
}
