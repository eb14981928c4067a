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
