/**
 * GPT-2's tokenizer, read from the Hub's tokenizer.json: byte-level BPE (every byte of the UTF-8
 * text is a character of the vocabulary, words split as GPT-2's pre-tokenizer splits them, then
 * merged pair by pair in the order of the merges). The same ids Hugging Face's tokenizers give,
 * without their 1 MB of code: the page loads this only when the reader asks for a run.
 */

/** A tokenizer.json the page cannot use, or a text it cannot encode: said to the reader as it is. */
export class TokenizerError extends Error {
  override name = 'TokenizerError';
}

/** GPT-2's pre-tokenizer: contractions, letters, numbers, other symbols, each with one leading space. */
const WORDS = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

/** GPT-2's map of the 256 bytes to printable characters (a space is "Ġ", a newline "Ċ"). */
function byteChars(): string[] {
  const chars: string[] = [];
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
    chars.push(String.fromCodePoint(printable ? b : 256 + extra++));
  }
  return chars;
}
const BYTE_CHARS = byteChars();
const CHAR_BYTES = new Map(BYTE_CHARS.map((c, b) => [c, b]));

export interface Tokenized {
  ids: number[];
  /** Each token as text (" cat"); a token that ends inside a character shows the replacement mark. */
  tokens: string[];
}

export interface Tokenizer {
  readonly vocabularySize: number;
  encode(text: string): Tokenized;
}

function parseMerges(value: unknown): [string, string][] {
  if (!Array.isArray(value)) throw new TokenizerError('tokenizer.json: model.merges must be a list of pairs.');
  return value.map((m: unknown, i) => {
    const pair = typeof m === 'string' ? m.split(' ') : m;
    if (!Array.isArray(pair) || pair.length !== 2 || pair.some((p) => typeof p !== 'string')) {
      throw new TokenizerError(`tokenizer.json: merge ${i} must be "a b" or ["a", "b"], got ${JSON.stringify(m)}.`);
    }
    return pair as [string, string];
  });
}

/** The added tokens (e.g. <|endoftext|>) by their text, and a split that finds them in a text (null: none). */
function addedTokens(parsed: unknown): { addedIds: Map<string, number>; special: RegExp | null } {
  const addedList = (parsed as { added_tokens?: unknown }).added_tokens;
  const addedIds = new Map<string, number>();
  for (const a of Array.isArray(addedList) ? addedList : []) {
    const t = a as { id?: unknown; content?: unknown } | null;
    if (typeof t?.content === 'string' && t.content && typeof t.id === 'number') addedIds.set(t.content, t.id);
  }
  const escape = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // A capturing split keeps the added tokens among the parts, longest first where one holds another.
  const special = addedIds.size
    ? new RegExp(
        `(${[...addedIds.keys()]
          .sort((a, b) => b.length - a.length)
          .map(escape)
          .join('|')})`,
      )
    : null;
  return { addedIds, special };
}

/** Byte-level BPE: a word's characters merged pair by pair, the lowest-ranked pair first (each word once). */
function bpeMerger(ranks: ReadonlyMap<string, number>): (word: string) => string[] {
  const cache = new Map<string, string[]>();
  return (word) => {
    const known = cache.get(word);
    if (known) return known;
    let parts = [...word];
    for (;;) {
      let best = -1;
      let bestRank = Infinity;
      for (let i = 0; i + 1 < parts.length; i++) {
        const rank = ranks.get(`${parts[i]} ${parts[i + 1]}`);
        if (rank !== undefined && rank < bestRank) [best, bestRank] = [i, rank];
      }
      if (best < 0) break;
      const [a, b] = [parts[best]!, parts[best + 1]!];
      const next: string[] = [];
      for (let i = 0; i < parts.length; i++) {
        if (i + 1 < parts.length && parts[i] === a && parts[i + 1] === b) (next.push(a + b), i++);
        else next.push(parts[i]!);
      }
      parts = next;
    }
    cache.set(word, parts);
    return parts;
  };
}

/** A tokenizer from the text of a tokenizer.json of a byte-level BPE model (GPT-2's). */
export function readTokenizer(json: string, source: string): Tokenizer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new TokenizerError(`${source} is not a tokenizer.json: it is not JSON (it begins “${json.slice(0, 40)}”).`);
  }
  const model = (parsed as { model?: { type?: unknown; vocab?: unknown; merges?: unknown } } | null)?.model;
  if (!model || model.type !== 'BPE' || typeof model.vocab !== 'object' || model.vocab === null) {
    throw new TokenizerError(
      `${source} is not a byte-level BPE tokenizer.json (GPT-2's): expected model.type "BPE" with a vocab, got ${JSON.stringify(model?.type ?? null)}.`,
    );
  }
  const vocab = new Map(Object.entries(model.vocab as Record<string, number>));
  const { addedIds, special } = addedTokens(parsed);
  const ranks = new Map(parseMerges(model.merges).map(([a, b], i) => [`${a} ${b}`, i]));
  const bpe = bpeMerger(ranks);

  const decoder = new TextDecoder();
  const show = (token: string) => decoder.decode(Uint8Array.from([...token], (c) => CHAR_BYTES.get(c) ?? 63));

  /** Text without added tokens: words, each merged, each piece looked up. */
  const encodeWords = (text: string, ids: number[], tokens: string[], bytes: TextEncoder): void => {
    for (const [word] of text.matchAll(WORDS)) {
      const chars = Array.from(bytes.encode(word), (b) => BYTE_CHARS[b]!).join('');
      for (const piece of bpe(chars)) {
        const id = vocab.get(piece);
        if (id === undefined) {
          throw new TokenizerError(
            `“${show(piece)}” (in “${word}”) has no token in ${source}: this tokenizer's vocabulary of ${vocab.size} does not cover it.`,
          );
        }
        ids.push(id);
        tokens.push(show(piece));
      }
    }
  };

  return {
    vocabularySize: vocab.size,
    encode(text) {
      const ids: number[] = [];
      const tokens: string[] = [];
      const bytes = new TextEncoder();
      // Added tokens ("<|endoftext|>") are whole where they are written; the text between them is split into words.
      const parts = special ? text.split(special) : [text];
      for (const part of parts) {
        const added = addedIds.get(part);
        if (added !== undefined) {
          ids.push(added);
          tokens.push(part);
          continue;
        }
        encodeWords(part, ids, tokens, bytes);
      }
      return { ids, tokens };
    },
  };
}
