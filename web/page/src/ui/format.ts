/** Small, locale-stable formatting helpers, for numbers, sizes and errors. */

/** What went wrong, as the page says it: the package's wording (an error's message, or the value thrown). */
export { errorText } from '../../../../dist/checks/error-text.js';

export function fmtBytes(n: number): string {
  if (!Number.isFinite(n)) return 'unknown size';
  const units = ['B', 'KB', 'MB', 'GB'];
  let i = 0;
  let v = n;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(v >= 100 ? 0 : 1)} ${units[i]}`;
}

export function fmtShape(shape: readonly number[]): string {
  return `[${shape.join(', ')}]`;
}

export function fmtTime(ms: number): string {
  if (ms < 1) return `${(ms * 1000).toFixed(ms < 0.01 ? 2 : 1)} µs`;
  if (ms < 1000) return `${ms.toFixed(ms < 10 ? 2 : 1)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

/** Parses a finite number typed by the visitor (accepts 1e-5, 0.00001, 1E-5). */
export function parseFinite(text: string): number | null {
  const t = text.trim();
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return null;
  const v = Number(t);
  return Number.isFinite(v) ? v : null;
}

/** A whole number typed by the visitor, or null (1.5, "", "1e400" and "abc" are not). */
export function parseWhole(text: string): number | null {
  const t = text.trim();
  if (!/^[+-]?\d+$/.test(t)) return null;
  const v = Number(t);
  return Number.isSafeInteger(v) ? v : null;
}

/** The shortest decimal that reads back as the same float32 (at most 9 significant digits). */
export function fmtF32(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  for (let p = 1; p <= 9; p++) {
    const s = v.toPrecision(p);
    if (Math.fround(Number(s)) === v) return String(Number(s)) === s ? s : fixExp(s);
  }
  return fixExp(v.toPrecision(9));
}

function fixExp(s: string): string {
  return s.includes('e') ? s.replace(/\.?0+e/, 'e') : s;
}

const bitsView = new DataView(new ArrayBuffer(4));
/** The float32 bit pattern as sign | exponent | mantissa in hex, e.g. 0x3f800000. */
export function hex32(v: number): string {
  bitsView.setFloat32(0, v);
  return '0x' + bitsView.getUint32(0).toString(16).padStart(8, '0');
}

/** An error size with three significant digits: 1.91e-6, 0.0312, 0. */
export function fmtErr(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (v === 0) return '0';
  return Math.abs(v) < 1e-3 ? v.toExponential(2).replace('e+', 'e') : String(Number(v.toPrecision(3)));
}
