/**
 * MathML from the equations as norms.ts writes them ('y = γ ⊙ (x − μ) / √(σ² + ε) + β'), so the
 * element shows each formula from its one specification, typeset by the browser: no web fonts, no
 * math library. The grammar is just what those equations use:
 *
 *   expr   := term (op term)*              op: = + − ⊙ ,
 *   term   := factor ('/' factor)*         a fraction; parentheses around its parts are dropped
 *   factor := '√' factor | 'Σᵢ' factor | '(' expr ')' | name '(' expr ')' | symbol, each with ² or ᵢ
 */
import { math } from './dom.js';

type Token = { kind: 'op' | 'open' | 'close' | 'sqrt' | 'sum' | 'name' | 'symbol' | 'sup2' | 'subi'; text: string };

function tokenize(text: string): Token[] {
  const out: Token[] = [];
  const chars = [...text];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === ' ') continue;
    if ('=+−⊙/,'.includes(c)) out.push({ kind: 'op', text: c });
    else if (c === '(') out.push({ kind: 'open', text: c });
    else if (c === ')') out.push({ kind: 'close', text: c });
    else if (c === '√') out.push({ kind: 'sqrt', text: c });
    else if (c === 'Σ') out.push({ kind: 'sum', text: c });
    else if (c === '²') out.push({ kind: 'sup2', text: '2' });
    else if (c === 'ᵢ') out.push({ kind: 'subi', text: 'i' });
    else if (/[a-z]/.test(c) && /[a-z]/.test(chars[i + 1] ?? '')) {
      let name = c;
      while (/[a-z]/.test(chars[i + 1] ?? '')) name += chars[++i];
      out.push({ kind: 'name', text: name });
    } else out.push({ kind: 'symbol', text: c });
  }
  return out;
}

/** A parsed part: its MathML, and for a parenthesized group the inside without the parentheses. */
interface Part {
  node: Element;
  inner?: Element;
}

const OPERATORS: Record<string, string> = { '−': '−', '+': '+', '=': '=', '⊙': '⊙', ',': ',' };

class Parser {
  #i = 0;
  constructor(private readonly tokens: Token[]) {}

  parse(): Element {
    const e = this.#expr();
    if (this.#i !== this.tokens.length) throw new Error(`unexpected "${this.tokens[this.#i]!.text}"`);
    return e;
  }

  #peek(): Token | undefined {
    return this.tokens[this.#i];
  }

  #expr(): Element {
    const parts: Element[] = [this.#term()];
    for (let t = this.#peek(); t?.kind === 'op' && t.text !== '/'; t = this.#peek()) {
      this.#i++;
      parts.push(math('mo', t.text === ',' ? { separator: 'true' } : undefined, OPERATORS[t.text]!));
      if (t.text === ',') parts.push(math('mspace', { width: '1.5em' }));
      parts.push(this.#term());
    }
    return parts.length === 1 ? parts[0]! : math('mrow', undefined, ...parts);
  }

  #term(): Element {
    let left = this.#factor();
    while (this.#peek()?.text === '/') {
      this.#i++;
      const right = this.#factor();
      left = { node: math('mfrac', undefined, left.inner ?? left.node, right.inner ?? right.node) };
    }
    return left.node;
  }

  #factor(): Part {
    const t = this.tokens[this.#i++];
    if (!t) throw new Error('the equation ends too early');
    let part: Part;
    if (t.kind === 'sqrt') {
      const arg = this.#factor();
      part = { node: math('msqrt', undefined, arg.inner ?? arg.node) };
    } else if (t.kind === 'sum') {
      const sigma = this.#scripts({ node: math('mo', { largeop: 'true' }, 'Σ') });
      const arg = this.#factor();
      return { node: math('mrow', undefined, sigma.node, arg.node) };
    } else if (t.kind === 'open') {
      const inner = this.#expr();
      if (this.tokens[this.#i++]?.kind !== 'close') throw new Error('a "(" is not closed');
      part = {
        node: math(
          'mrow',
          undefined,
          math('mo', { stretchy: 'false' }, '('),
          inner,
          math('mo', { stretchy: 'false' }, ')'),
        ),
        inner,
      };
    } else if (t.kind === 'name') {
      const arg = this.#factor();
      part = { node: math('mrow', undefined, math('mi', { mathvariant: 'normal' }, t.text), arg.node) };
    } else if (t.kind === 'symbol') {
      part = { node: math('mi', undefined, t.text) };
    } else throw new Error(`unexpected "${t.text}"`);
    return this.#scripts(part);
  }

  /** A ² or an ᵢ after a part. */
  #scripts(part: Part): Part {
    const t = this.#peek();
    if (t?.kind === 'sup2') {
      this.#i++;
      return { node: math('msup', undefined, part.node, math('mn', undefined, '2')) };
    }
    if (t?.kind === 'subi') {
      this.#i++;
      const sub = { node: math('msub', undefined, part.node, math('mi', undefined, 'i')) };
      return this.#scripts(sub);
    }
    return part;
  }
}

/** `<math display="block">` for one or more equations ('μ = …, σ² = …' keeps them on one line). */
export function equation(text: string, label?: string): Element {
  return math(
    'math',
    { display: 'block', ...(label ? { 'aria-label': label } : {}) },
    new Parser(tokenize(text)).parse(),
  );
}
