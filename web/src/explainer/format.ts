/** How the element writes numbers and tokens: locale-stable, short, exact where it matters. */

/** `digits` significant digits; exponent notation for very large or small magnitudes. */
export function fmtNum(v: number, digits = 6): string {
  if (!Number.isFinite(v)) return String(v);
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e6 || a < 1e-4) return v.toExponential(Math.max(0, digits - 3)).replace('e+', 'e');
  return Number(v.toPrecision(digits)).toString();
}

export function fmtInt(n: number): string {
  return n.toLocaleString('en-US');
}

/** The shortest decimal for ε as a checkpoint states it (a float32 or a double): 1e-5, 1e-6, 0.1. */
export function fmtEps(v: number): string {
  if (v === 0) return '0';
  for (let p = 1; p <= 17; p++) {
    const s = v.toExponential(p - 1);
    const back = Number(s);
    if (back === v || Math.fround(back) === v) return v >= 1e-3 && v < 1e6 ? String(back) : s.replace('e+', 'e');
  }
  return String(v);
}

/** A short tick or bar label: 0, 12.5, 3e4, -2e-5. */
export function fmtTick(v: number, digits = 3): string {
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e4 || a < 1e-3)
    return v
      .toExponential(Math.max(0, digits - 2))
      .replace('e+', 'e')
      .replace(/\.?0+e/, 'e');
  return String(Number(v.toPrecision(digits)));
}

/** A token with its whitespace made visible (GPT-2's tokens often start with a space), at most 24 characters. */
export function showToken(token: string): string {
  const visible = token.replace(/ /g, '␣').replace(/\n/g, '↵').replace(/\t/g, '⇥');
  return visible.length > 24 ? `${visible.slice(0, 23)}…` : visible;
}

/** How a row is named: its token when there are tokens, its (b, t) for [B, T, d], else its index. */
export function describeRow(row: number, shape: readonly number[] | null, tokens: readonly string[] | null): string {
  const token = tokens?.[row];
  if (token !== undefined) return `row ${row} “${showToken(token)}”`;
  if (shape && shape.length === 3) {
    const T = shape[1]!;
    return `row ${row} (b ${Math.floor(row / T)}, t ${row % T})`;
  }
  return `row ${row}`;
}

/** A whole number typed by the reader (digits, optionally +), or null. */
export function parseWhole(text: string): number | null {
  const t = text.trim();
  if (!/^\+?\d+$/.test(t)) return null;
  const v = Number(t);
  return Number.isSafeInteger(v) ? v : null;
}
