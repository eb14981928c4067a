// Bit-for-bit comparison of typed arrays that stays fast at millions of elements (Vitest's
// toEqual walks them element by element), with a failure message that says where they differ.

/** Float arrays, or the Uint16Array bits of float16 / bfloat16 values. */
type Floats = Float32Array | Float64Array | Uint16Array;

/** null when a and b hold the same bits, else where and how they differ. */
export function bitDifference(a: Floats, b: Floats): string | null {
  if (a.constructor !== b.constructor) return `${a.constructor.name} vs ${b.constructor.name}`;
  if (a.length !== b.length) return `length ${a.length} vs ${b.length}`;
  const ba = Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  const bb = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  if (ba.equals(bb)) return null;
  for (let i = 0; i < a.length; i++) {
    if (!Object.is(a[i], b[i]) && !(Number.isNaN(a[i]) && Number.isNaN(b[i]))) return `[${i}]: ${a[i]} vs ${b[i]}`;
  }
  return 'NaN payloads differ';
}

/** bitDifference over every array field of two result objects (layerNormStats, …). */
export function fieldsDifference(a: object, b: object): string | null {
  const ka = Object.keys(a).sort().join(),
    kb = Object.keys(b).sort().join();
  if (ka !== kb) return `fields ${ka} vs ${kb}`;
  for (const [k, v] of Object.entries(a)) {
    const diff = bitDifference(v as Floats, (b as Record<string, Floats>)[k]!);
    if (diff) return `${k} ${diff}`;
  }
  return null;
}

/**
 * null when two records of results (a call's output, the arrays it filled, its statistics, stages,
 * shapes, properties) hold the same values, typed arrays bit for bit; else the first difference.
 */
export function recordDifference(a: unknown, b: unknown, path = ''): string | null {
  if (ArrayBuffer.isView(a) || ArrayBuffer.isView(b)) {
    if (!ArrayBuffer.isView(a) || !ArrayBuffer.isView(b)) return `${path}: ${String(a)} vs ${String(b)}`;
    const diff = bitDifference(a as Floats, b as Floats);
    return diff && `${path} ${diff}`;
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a).sort().join(),
      kb = Object.keys(b).sort().join();
    if (ka !== kb) return `${path}: fields ${ka} vs ${kb}`;
    for (const k of Object.keys(a)) {
      const diff = recordDifference(
        (a as Record<string, unknown>)[k],
        (b as Record<string, unknown>)[k],
        `${path}.${k}`,
      );
      if (diff) return diff;
    }
    return null;
  }
  return Object.is(a, b) ? null : `${path}: ${String(a)} vs ${String(b)}`;
}
