// The I/O and metrics functions follow the numeric API's rule (web/docs/errors.md): a value of the
// wrong type is a TypeError, a value of the right type out of bounds a RangeError, a name outside a
// fixed set (a dtype, a format) a TypeError; every message reads `fn: name must be X, got Y`. Each
// row is checked for its exact class and message, and for throwing (sync functions) or rejecting
// (async ones) — never both, never an engine error halfway through a read. Long because it is one
// table of cases, function by function.
import { describe, expect, it } from 'vitest';
import { compareOutputs, ulp32 } from '../../dist/index.js';
import {
  bfloat16ToFloat32,
  decodeNpyData,
  float16ToFloat32,
  loadLayerNormWeights,
  loadNormWeights,
  openByteSource,
  parseActivationsJson,
  parseActivationsText,
  readNpy,
  readNpyHeader,
  writeNpy,
  writeNpyHeader,
} from '../../dist/io/index.js';

const npy = writeNpy(Float32Array.of(1, 2, 3, 4), [4]);
const y4 = Float32Array.of(1, 2, 3, 4);
const BYTES = 'an http(s) URL, a Blob/File, an ArrayBuffer or a typed array';
/** 30,000 dimensions of 1: a header of "(1, 1, …)" longer than a version 1.0 header can hold. */
const longShape = new Array<number>(30_000).fill(1);

type Row = [name: string, call: () => unknown, type: ErrorConstructor, message: string];

/** An ArrayBuffer transferred away (to a worker, say): its bytes are gone. */
function detached(): ArrayBuffer {
  const buffer = new ArrayBuffer(8);
  structuredClone(buffer, { transfer: [buffer] });
  return buffer;
}
/** A view made before its buffer was transferred: length 0 now, and no new view can be made on it. */
function detachedView(): Uint8Array {
  const view = new Uint8Array(8);
  structuredClone(view.buffer, { transfer: [view.buffer] });
  return view;
}
const GONE = '(it was transferred); pass bytes that are still live';

/** The error of a sync call (it must throw, not return) or of an async one (it must reject, not throw). */
async function failure(call: () => unknown, async: boolean): Promise<Error> {
  let result: unknown;
  try {
    result = call();
  } catch (e) {
    if (async) throw new Error(`threw synchronously instead of rejecting: ${String(e)}`);
    return e as Error;
  }
  if (!async) throw new Error('returned instead of throwing');
  if (!(result instanceof Promise)) throw new Error('returned something other than a Promise');
  try {
    await result;
  } catch (e) {
    return e as Error;
  }
  throw new Error('resolved instead of rejecting');
}

async function expectRow([, call, type, message]: Row, async: boolean) {
  const e = await failure(call, async);
  expect(e.constructor).toBe(type);
  expect(e.message).toBe(message);
}

describe('I/O and metrics: wrong types are TypeErrors, wrong values RangeErrors', () => {
  const sync: Row[] = [
    [
      'decodeNpyData bytes as an Array',
      () => decodeNpyData([1, 2] as never, 'float32', 0),
      TypeError,
      'decodeNpyData: bytes must be a Uint8Array, got Array(2)',
    ],
    [
      'decodeNpyData dtype "int8" (a name outside the set)',
      () => decodeNpyData(new Uint8Array(8), 'int8' as never, 1),
      TypeError,
      `decodeNpyData: dtype must be 'float32', 'float64' or 'float16', got string "int8"`,
    ],
    [
      'decodeNpyData dtype 1',
      () => decodeNpyData(new Uint8Array(8), 1 as never, 1),
      TypeError,
      `decodeNpyData: dtype must be 'float32', 'float64' or 'float16', got number 1`,
    ],
    ...(['1', 1n, null] as unknown[]).map((count): Row => [
      `decodeNpyData count ${typeof count === 'bigint' ? '1n' : JSON.stringify(count)}`,
      () => decodeNpyData(new Uint8Array(8), 'float32', count as never),
      TypeError,
      `decodeNpyData: count must be an integer from 0 to 2 (the float32 values in 8 bytes), got ${
        count === null ? 'null' : typeof count === 'bigint' ? 'bigint 1n' : 'string "1"'
      }`,
    ]),
    ...[1.5, -1, 3, NaN].map((count): Row => [
      `decodeNpyData count ${count}`,
      () => decodeNpyData(new Uint8Array(8), 'float32', count),
      RangeError,
      `decodeNpyData: count must be an integer from 0 to 2 (the float32 values in 8 bytes), got number ${count}`,
    ]),
    [
      'readNpy input 5',
      () => readNpy(5 as never),
      TypeError,
      'readNpy: input must be a Uint8Array or ArrayBuffer, got number 5',
    ],
    ['readNpy source 5', () => readNpy(npy, 5 as never), TypeError, 'readNpy: source must be a string, got number 5'],
    [
      'writeNpy data as an Array',
      () => writeNpy([1] as never, [1]),
      TypeError,
      'writeNpy: data must be a Float32Array, got Array(1)',
    ],
    [
      'writeNpy shape "3"',
      () => writeNpy(y4, '3' as never),
      TypeError,
      'writeNpy: shape must be an array of integers >= 0, got string "3"',
    ],
    [
      'writeNpy shape ["4"]',
      () => writeNpy(y4, ['4'] as never),
      TypeError,
      'writeNpy: shape[0] must be an integer >= 0, got string "4"',
    ],
    [
      'writeNpy shape [2, 1.5]',
      () => writeNpy(y4, [2, 1.5]),
      RangeError,
      'writeNpy: shape[1] must be an integer >= 0, got number 1.5',
    ],
    [
      'writeNpy shape [3] for 4 values',
      () => writeNpy(y4, [3]),
      RangeError,
      'writeNpy: data must have 3 values (the product of shape [3]), got 4',
    ],
    [
      'writeNpyHeader shape 5',
      () => writeNpyHeader(5 as never),
      TypeError,
      'writeNpyHeader: shape must be an array of integers >= 0, got number 5',
    ],
    [
      'writeNpyHeader shape [-1]',
      () => writeNpyHeader([-1]),
      RangeError,
      'writeNpyHeader: shape[0] must be an integer >= 0, got number -1',
    ],
    [
      'writeNpyHeader of 30,000 dimensions',
      () => writeNpyHeader(longShape),
      RangeError,
      'writeNpyHeader: shape must fit in a version 1.0 header (at most 65535 bytes), got 30000 dimensions, a 90102-byte header',
    ],
    [
      'parseActivationsJson text 5',
      () => parseActivationsJson(5 as never),
      TypeError,
      'parseActivationsJson: text must be a string, got number 5',
    ],
    [
      'parseActivationsJson source 5',
      () => parseActivationsJson('[1]', 5 as never),
      TypeError,
      'parseActivationsJson: source must be a string, got number 5',
    ],
    [
      'parseActivationsText text null',
      () => parseActivationsText(null as never),
      TypeError,
      'parseActivationsText: text must be a string, got null',
    ],
    [
      'float16ToFloat32 "1"',
      () => float16ToFloat32('1' as never),
      TypeError,
      'float16ToFloat32: bits must be an integer in [0, 65535], got string "1"',
    ],
    [
      'float16ToFloat32 65536',
      () => float16ToFloat32(65536),
      RangeError,
      'float16ToFloat32: bits must be an integer in [0, 65535], got number 65536',
    ],
    [
      'float16ToFloat32 1.5',
      () => float16ToFloat32(1.5),
      RangeError,
      'float16ToFloat32: bits must be an integer in [0, 65535], got number 1.5',
    ],
    [
      'bfloat16ToFloat32 1n',
      () => bfloat16ToFloat32(1n as never),
      TypeError,
      'bfloat16ToFloat32: bits must be an integer in [0, 65535], got bigint 1n',
    ],
    [
      'bfloat16ToFloat32 -1',
      () => bfloat16ToFloat32(-1),
      RangeError,
      'bfloat16ToFloat32: bits must be an integer in [0, 65535], got number -1',
    ],
    ['ulp32 "1"', () => ulp32('1' as never), TypeError, 'ulp32: s must be a finite number >= 0, got string "1"'],
    ...[-1, NaN, Infinity].map((s): Row => [
      `ulp32 ${s}`,
      () => ulp32(s),
      RangeError,
      `ulp32: s must be a finite number >= 0, got number ${s}`,
    ]),
    [
      'compareOutputs y as an Array',
      () => compareOutputs([1] as never, [1] as never, 1),
      TypeError,
      'compareOutputs: y must be a Float32Array, got Array(1)',
    ],
    [
      'compareOutputs expected as a Float64Array',
      () => compareOutputs(y4, new Float64Array(4) as never, 4),
      TypeError,
      'compareOutputs: expected must be a Float32Array, got Float64Array(4)',
    ],
    [
      'compareOutputs d "4"',
      () => compareOutputs(y4, y4, '4' as never),
      TypeError,
      'compareOutputs: d must be a positive integer, got string "4"',
    ],
    [
      'compareOutputs d 0',
      () => compareOutputs(y4, y4, 0),
      RangeError,
      'compareOutputs: d must be a positive integer, got number 0',
    ],
    [
      'compareOutputs 4 values with d = 3',
      () => compareOutputs(y4, y4, 3),
      RangeError,
      'compareOutputs: y.length must be a multiple of d = 3, got 4 (1 rows and 1 left over)',
    ],
    [
      'compareOutputs arrays of different lengths',
      () => compareOutputs(y4, new Float32Array(2), 2),
      RangeError,
      'compareOutputs: expected must have length 4 (the same as y), got length 2',
    ],
    [
      'compareOutputs beta as an Array',
      () => compareOutputs(y4, y4, 4, [0, 0, 0, 0] as never),
      TypeError,
      'compareOutputs: beta must be a Float32Array, got Array(4)',
    ],
    [
      'compareOutputs beta of length 2 with d = 4',
      () => compareOutputs(y4, y4, 4, new Float32Array(2)),
      RangeError,
      'compareOutputs: beta must have length d = 4, got length 2',
    ],
    [
      'openByteSource source 5',
      () => openByteSource(5 as never),
      TypeError,
      `openByteSource: source must be ${BYTES}, got number 5`,
    ],
    [
      'openByteSource options 5',
      () => openByteSource(npy, 5 as never),
      TypeError,
      'openByteSource: options must be an object, got number 5',
    ],
    [
      'openByteSource signal "x"',
      () => openByteSource(npy, { signal: 'x' as never }),
      TypeError,
      'openByteSource: signal must be an AbortSignal, got string "x"',
    ],
    [
      'openByteSource onProgress 5',
      () => openByteSource(npy, { onProgress: 5 as never }),
      TypeError,
      'openByteSource: onProgress must be a function, got number 5',
    ],
    [
      'openByteSource fetch "x"',
      () => openByteSource(npy, { fetch: 'x' as never }),
      TypeError,
      'openByteSource: fetch must be a function, got string "x"',
    ],
    [
      'openByteSource headers as a Headers object (it would spread to nothing)',
      () => openByteSource(npy, { headers: new Headers({ a: 'b' }) as never }),
      TypeError,
      'openByteSource: headers must be a plain object of header names to strings, got Headers',
    ],
    [
      'openByteSource a header that is not a string',
      () => openByteSource(npy, { headers: { Authorization: 1 } as never }),
      TypeError,
      'openByteSource: headers["Authorization"] must be a string, got number 1',
    ],
    [
      'openByteSource maxWholeBodyBytes "x"',
      () => openByteSource(npy, { maxWholeBodyBytes: 'x' as never }),
      TypeError,
      'openByteSource: maxWholeBodyBytes must be an integer >= 0, got string "x"',
    ],
    [
      'openByteSource maxWholeBodyBytes -1',
      () => openByteSource(npy, { maxWholeBodyBytes: -1 }),
      RangeError,
      'openByteSource: maxWholeBodyBytes must be an integer >= 0, got number -1',
    ],
    [
      'readNpy of a detached ArrayBuffer',
      () => readNpy(detached()),
      TypeError,
      `readNpy: input is a detached ArrayBuffer ${GONE}`,
    ],
    [
      'decodeNpyData of a view of a detached ArrayBuffer',
      () => decodeNpyData(detachedView(), 'float32', 0),
      TypeError,
      `decodeNpyData: bytes is a view of a detached ArrayBuffer ${GONE}`,
    ],
    [
      'openByteSource of a detached ArrayBuffer',
      () => openByteSource(detached()),
      TypeError,
      `openByteSource: source is a detached ArrayBuffer ${GONE}`,
    ],
  ];
  it.each(sync)('%s', (...row) => expectRow(row, false));

  const async: Row[] = [
    [
      'ByteSource.read offset "1"',
      () => openByteSource(npy).read('1' as never, 2),
      TypeError,
      'ByteSource.read: offset must be an integer >= 0, got string "1"',
    ],
    [
      'ByteSource.read length 1.5',
      () => openByteSource(npy).read(0, 1.5),
      RangeError,
      'ByteSource.read: length must be an integer >= 0, got number 1.5',
    ],
    [
      'readNpyHeader source 5',
      () => readNpyHeader(5 as never),
      TypeError,
      `readNpyHeader: source must be ${BYTES}, got number 5`,
    ],
    [
      'readNpyHeader onProgress 5',
      () => readNpyHeader(npy, { onProgress: 5 as never }),
      TypeError,
      'readNpyHeader: onProgress must be a function, got number 5',
    ],
    [
      'loadLayerNormWeights onProgress 5',
      () => loadLayerNormWeights(npy, { onProgress: 5 as never }),
      TypeError,
      'loadLayerNormWeights: onProgress must be a function, got number 5',
    ],
    [
      'loadLayerNormWeights format "zip" (a name outside the set)',
      () => loadLayerNormWeights(npy, { format: 'zip' as never }),
      TypeError,
      `loadLayerNormWeights: format must be 'safetensors', 'gguf' or 'npy', got string "zip"`,
    ],
    [
      'loadLayerNormWeights bias 5',
      () => loadLayerNormWeights(npy, { bias: 5 as never }),
      TypeError,
      'loadLayerNormWeights: bias must be a string or null, got number 5',
    ],
    [
      'loadLayerNormWeights weight 5',
      () => loadLayerNormWeights(npy, { weight: 5 as never }),
      TypeError,
      'loadLayerNormWeights: weight must be a string, got number 5',
    ],
    [
      'loadLayerNormWeights signal "x"',
      () => loadLayerNormWeights(npy, { signal: 'x' as never }),
      TypeError,
      'loadLayerNormWeights: signal must be an AbortSignal, got string "x"',
    ],
    [
      'loadLayerNormWeights maxWholeBodyBytes "x"',
      () => loadLayerNormWeights(npy, { maxWholeBodyBytes: 'x' as never }),
      TypeError,
      'loadLayerNormWeights: maxWholeBodyBytes must be an integer >= 0, got string "x"',
    ],
    [
      'loadLayerNormWeights options 5',
      () => loadLayerNormWeights(npy, 5 as never),
      TypeError,
      'loadLayerNormWeights: options must be an object, got number 5',
    ],
    [
      'loadLayerNormWeights config 5',
      () => loadLayerNormWeights(npy, { config: 5 as never }),
      TypeError,
      `loadLayerNormWeights: config must be ${BYTES} of config.json, its parsed object, or null, got number 5`,
    ],
    [
      'loadLayerNormWeights source 5',
      () => loadLayerNormWeights(5 as never),
      TypeError,
      `loadLayerNormWeights: source must be ${BYTES}, or { gamma, beta } of .npy sources, got number 5`,
    ],
    [
      'loadLayerNormWeights source { gamma: 5 }',
      () => loadLayerNormWeights({ gamma: 5 as never }),
      TypeError,
      `loadLayerNormWeights: source.gamma must be ${BYTES}, got number 5`,
    ],
    [
      'loadNormWeights names its own function',
      () => loadNormWeights(npy, { onProgress: 'log' as never }),
      TypeError,
      'loadNormWeights: onProgress must be a function, got string "log"',
    ],
    [
      'loadNormWeights bias named for a { gamma, beta } pair',
      () => loadNormWeights({ gamma: npy, beta: npy }, { bias: 'ln_f.bias' }),
      RangeError,
      'loadNormWeights: bias must be null or omitted for a { gamma, beta } pair of .npy files (it has no tensor names; pass { gamma, beta } for a gain and a bias), got string "ln_f.bias"',
    ],
    [
      'loadLayerNormWeights weight named for a .npy file',
      () => loadLayerNormWeights(npy, { weight: 'ln_f.weight' }),
      RangeError,
      'loadLayerNormWeights: weight must be omitted for a .npy file (it has no tensor names), got string "ln_f.weight"',
    ],
    [
      'loadLayerNormWeights of a detached ArrayBuffer',
      () => loadLayerNormWeights(detached()),
      TypeError,
      `loadLayerNormWeights: source is a detached ArrayBuffer ${GONE}`,
    ],
    [
      'loadLayerNormWeights config a detached ArrayBuffer',
      () => loadLayerNormWeights(npy, { config: detached() }),
      TypeError,
      `loadLayerNormWeights: config is a detached ArrayBuffer ${GONE}`,
    ],
  ];
  it.each(async)('%s', (...row) => expectRow(row, true));

  it('a bad option is refused before anything is requested', async () => {
    let requests = 0;
    const fetch = (() => {
      requests++;
      throw new Error('no request was expected');
    }) as typeof globalThis.fetch;
    const refused: Array<[object, string]> = [
      [{ onProgress: 5 }, 'onProgress must be a function, got number 5'],
      [{ format: 'zip' }, `format must be 'safetensors', 'gguf' or 'npy', got string "zip"`],
      [{ headers: { a: 1 } }, 'headers["a"] must be a string, got number 1'],
      [
        { config: true },
        'config must be an http(s) URL, a Blob/File, an ArrayBuffer or a typed array of config.json, its parsed object, or null, got boolean',
      ],
    ];
    for (const [options, message] of refused) {
      const e = await failure(
        () => loadLayerNormWeights('https://example.org/m.safetensors', { fetch, ...options } as never),
        true,
      );
      expect([e.constructor, e.message]).toEqual([TypeError, `loadLayerNormWeights: ${message}`]);
    }
    expect(requests).toBe(0);
  });

  it('accepted: null options, a header object without a prototype, maxWholeBodyBytes 0, an AbortSignal', async () => {
    const headers = Object.assign(Object.create(null) as Record<string, string>, { 'X-Test': '1' });
    const signal = new AbortController().signal;
    const source = openByteSource(npy, { headers, maxWholeBodyBytes: 0, signal, onProgress: () => undefined });
    expect((await source.read(0, 6)).length).toBe(6);
    expect(openByteSource(npy, null as never).size).toBe(npy.length);
    const w = await loadLayerNormWeights(npy, null as never);
    expect(Array.from(w.gamma)).toEqual([1, 2, 3, 4]);
    expect(compareOutputs(y4, y4, 2, Float32Array.of(0, 0)).compared).toBe(4);
    expect(ulp32(0)).toBe(2 ** -149);
  });
});
