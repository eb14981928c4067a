/**
 * How error messages name the value that came. Apart from the error classes so that code that only
 * words messages (the explainer element) takes this alone.
 */

/** A short, safe description of any value for error messages ("Float64Array(12)", "string \"abc\""). */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (ArrayBuffer.isView(value)) {
    const n = (value as { length?: number }).length;
    return `${value.constructor.name}(${n ?? value.byteLength})`;
  }
  if (Array.isArray(value)) return `Array(${value.length})`;
  switch (typeof value) {
    case 'number':
      return `number ${String(value)}`;
    case 'string':
      return `string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value)}`;
    case 'bigint':
      return `bigint ${value}n`;
    case 'object': {
      const ctor = (value as object).constructor;
      return ctor && ctor.name ? ctor.name : 'object';
    }
    default:
      return typeof value;
  }
}
