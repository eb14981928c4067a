/**
 * A value read from a file, described for an error message: at most two levels deep and a few
 * elements wide. Files can nest arrays a million deep, where JSON.stringify and String() would
 * overflow the stack.
 */
export function brief(value: unknown, depth = 2): string {
  if (Array.isArray(value)) {
    if (depth === 0) return value.length ? '[…]' : '[]';
    const shown = value.slice(0, 6).map((v) => brief(v, depth - 1));
    return `[${shown.join(', ')}${value.length > 6 ? ', …' : ''}]`;
  }
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value);
    if (depth === 0) return keys.length ? '{…}' : '{}';
    const shown = keys
      .slice(0, 6)
      .map((k) => `${JSON.stringify(k)}: ${brief((value as Record<string, unknown>)[k], depth - 1)}`);
    return `{${shown.join(', ')}${keys.length > 6 ? ', …' : ''}}`;
  }
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value);
  if (typeof value === 'bigint') return `${value}`;
  return String(value);
}
