/**
 * The page's GPT-2 tokenizer (web/page/src/engine/text/bpe.ts) on a tokenizer.json of GPT-2's
 * form: every byte a token (GPT-2's printable characters for bytes, "Ġ" for a space, "Ċ" for a
 * newline), merges applied lowest rank first, words split as GPT-2's pre-tokenizer splits them
 * (contractions, letters, numbers, symbols, each with one leading space; runs of spaces). The
 * expected pieces are worked out by hand from those rules.
 */
import { describe, expect, it } from 'vitest';
import { readTokenizer, TokenizerError } from '../../web/page/src/engine/text/bpe';

/** GPT-2's byte → character map, written out from its definition. */
const byteChar = (b: number) => {
  const printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
  if (printable) return String.fromCodePoint(b);
  let n = 0;
  for (let c = 0; c < b; c++) if (!((c >= 33 && c <= 126) || (c >= 161 && c <= 172) || c >= 174)) n++;
  return String.fromCodePoint(256 + n);
};

function tokenizer(merges: string[] | [string, string][]) {
  const vocab: Record<string, number> = {};
  for (let b = 0; b < 256; b++) vocab[byteChar(b)] = b;
  for (const m of merges) vocab[typeof m === 'string' ? m.replace(' ', '') : m.join('')] = Object.keys(vocab).length;
  return { vocab, tok: readTokenizer(JSON.stringify({ model: { type: 'BPE', vocab, merges } }), 'tokenizer.json') };
}

describe('the page’s GPT-2 tokenizer', () => {
  it('maps bytes as GPT-2 does: a space is Ġ (256 + 32), a newline Ċ, printable ASCII itself', () => {
    expect([byteChar(32), byteChar(10), byteChar(65)]).toEqual(['Ġ', 'Ċ', 'A']);
    const { tok } = tokenizer([]);
    expect(tok.encode('A b\n').ids).toEqual([65, 32, 98, 10]);
    expect(tok.encode('A b\n').tokens).toEqual(['A', ' ', 'b', '\n']);
  });

  it('merges lowest rank first, in either form tokenizer.json writes merges', () => {
    const merges = ['Ġ t', 'h e', 'Ġt he', 'a t', 'Ġ c', 'Ġc at'];
    for (const form of [merges, merges.map((m) => m.split(' ') as [string, string])]) {
      const { vocab, tok } = tokenizer(form);
      const r = tok.encode('the cat sat');
      // "the": t + he (Ġ t needs a space); " cat": at first, then Ġc, then Ġcat; " sat": Ġ s at.
      expect(r.tokens).toEqual(['t', 'he', ' cat', ' ', 's', 'at']);
      expect(r.ids).toEqual([116, vocab.he, vocab['Ġcat'], 32, 115, vocab.at]);
    }
  });

  it("splits words as GPT-2's pre-tokenizer: contractions, numbers, symbols, runs of spaces", () => {
    // Merges that would join pieces across the words, were they not split first.
    const { vocab, tok } = tokenizer(["' m", 'm Ġ', 'Ġ Ġ', 'Ġ 2', '2 x']);
    const words = (t: string) => tok.encode(t).tokens.join('|');
    // "I" "'m" " " (a run of spaces keeps its last for the next word) " 2" "x" "!".
    expect(words("I'm  2x!")).toBe("I|'m| | 2|x|!");
    expect(tok.encode("I'm  2x!").ids).toEqual([73, vocab["'m"], 32, vocab['Ġ2'], 120, 33]);
    expect(words('é')).toBe('\uFFFD|\uFFFD'); // two bytes, each a token that ends inside the character
  });

  it("keeps an added token (GPT-2's <|endoftext|>) whole where it is written, and splits the text around it", () => {
    const vocab: Record<string, number> = {};
    for (let b = 0; b < 256; b++) vocab[byteChar(b)] = b;
    const json = {
      model: { type: 'BPE', vocab, merges: [] },
      added_tokens: [{ id: 50256, content: '<|endoftext|>', special: true }],
    };
    const tok = readTokenizer(JSON.stringify(json), 'gpt2.json');
    const r = tok.encode('a<|endoftext|> b<|endoftext|>');
    expect(r.ids).toEqual([97, 50256, 32, 98, 50256]);
    expect(r.tokens).toEqual(['a', '<|endoftext|>', ' ', 'b', '<|endoftext|>']);
    // Without the added token, the same text is bytes.
    expect(readTokenizer(JSON.stringify({ model: json.model }), 'x.json').encode('<|').ids).toEqual([60, 124]);
  });

  it('says which text has no token, and refuses what is not a BPE tokenizer.json', () => {
    const vocab = { a: 0, Ġ: 1 };
    const tok = readTokenizer(JSON.stringify({ model: { type: 'BPE', vocab, merges: [] } }), 'tiny.json');
    expect(() => tok.encode('a b')).toThrow(
      new TokenizerError(
        "“b” (in “ b”) has no token in tiny.json: this tokenizer's vocabulary of 2 does not cover it.",
      ),
    );
    expect(() => readTokenizer('<html>', 'x.json')).toThrow(TokenizerError);
    expect(() => readTokenizer('{"model":{"type":"Unigram","vocab":[]}}', 'x.json')).toThrow(
      'x.json is not a byte-level BPE tokenizer.json (GPT-2\'s): expected model.type "BPE" with a vocab, got "Unigram".',
    );
    expect(() => readTokenizer('{"model":{"type":"BPE","vocab":{},"merges":[3]}}', 'x.json')).toThrow(
      'tokenizer.json: merge 0 must be "a b" or ["a", "b"], got 3.',
    );
  });
});
