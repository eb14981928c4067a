/**
 * Token strings that label the rows: a `"tokens"` array inside `{ tokens, shape, data }` JSON, or a
 * tokens file beside a .npy (one token per line, or a JSON array of strings).
 */

/**
 * The value of the top-level `"tokens"` key of a JSON object, or null when there is none. The
 * numbers are parsed by the package (with positions in its errors, and NaN as Python writes it),
 * so only the span of the tokens array is located here and handed to JSON.parse.
 */
export function tokensFromJson(text: string): unknown[] | null {
  let i = 0;
  const n = text.length;
  const skipSpace = () => {
    while (i < n && /\s/.test(text[i]!)) i++;
  };
  const skipString = () => {
    i++; // opening quote
    while (i < n && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
  };
  skipSpace();
  if (text[i] !== '{') return null;
  let depth = 0;
  while (i < n) {
    const c = text[i]!;
    if (c === '"') {
      const start = i;
      skipString();
      const isTokensKey = depth === 1 && text.slice(start, i) === '"tokens"';
      skipSpace();
      if (!isTokensKey || text[i] !== ':') continue;
      i++;
      skipSpace();
      const valueStart = i;
      let inner = 0;
      while (i < n) {
        const v = text[i]!;
        if (v === '"') {
          skipString();
          if (inner === 0) break;
          continue;
        }
        if (v === '[' || v === '{') inner++;
        else if (v === ']' || v === '}') inner--;
        i++;
        if (inner === 0) break;
      }
      const parsed: unknown = JSON.parse(text.slice(valueStart, i));
      return Array.isArray(parsed) ? parsed : null;
    }
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    i++;
  }
  return null;
}

/** A tokens file: a JSON array of strings, or one token per line. */
export function tokensFromFile(text: string): unknown[] {
  const t = text.trim();
  if (t.startsWith('[')) {
    const parsed: unknown = JSON.parse(t);
    if (Array.isArray(parsed)) return parsed;
  }
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Checks the tokens against the rows: the strings, or why they cannot label these rows. */
export function checkTokens(
  tokens: unknown[] | null,
  rows: number,
  where: string,
): { tokens: string[] | null; note: string | null } {
  if (tokens === null) return { tokens: null, note: null };
  if (!tokens.every((t): t is string => typeof t === 'string')) {
    return { tokens: null, note: `${where}: tokens must be strings; the rows keep their numbers.` };
  }
  if (tokens.length !== rows) {
    return {
      tokens: null,
      note: `${where} has ${tokens.length.toLocaleString('en-US')} tokens but the activations have ${rows.toLocaleString('en-US')} rows; the rows keep their numbers.`,
    };
  }
  return { tokens, note: null };
}
