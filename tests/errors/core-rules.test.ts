/**
 * The wasm module's bindings call the core's entry points that trust their call
 * (cpp/src/validate.h): the core's own checks run for its C++ users only. This is the proof that
 * nothing is lost: for every status layernorm::Status names (cpp/include/layernorm/layernorm.h), the
 * façade's check that refuses such a call first, shown by cases of the error catalogue
 * (tests/kit/catalogue: run here on the main thread with their exact type and message, and by
 * tests/errors/worker.test.ts through a worker), or why the façade cannot make such a call at all.
 * A status added to the header fails here until it has its check.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import * as pkg from '../../dist/index.js';
import { DTYPE_CODES } from '../../dist/checks/activations.js';
import { NORMS, normWire } from '../../dist/norms.js';
import { CASES, type Context, type ErrorCase } from '../kit/catalogue/index.mjs';
import { GAMMA3, arrays, expectCaseError, expectGood, failure } from './context.js';

const ROOT = new URL('../../', import.meta.url);
const HEADER = readFileSync(new URL('cpp/include/layernorm/layernorm.h', ROOT), 'utf8');
const BINDINGS = readFileSync(new URL('cpp/bindings/embind.cc', ROOT), 'utf8');

/** An enum of the header as { name: value }. */
function cppEnum(name: string): Record<string, number> {
  const body = HEADER.match(new RegExp(`enum class ${name} : int \\{([^}]*)\\}`))?.[1];
  if (body === undefined) throw new Error(`layernorm.h has no enum ${name}`);
  return Object.fromEntries([...body.matchAll(/\b(k\w+) = (\d+)/g)].map((m) => [m[1]!, Number(m[2])]));
}

type Proof = { cases: string[] } | { never: string };

/** Each status: the catalogue cases (`row: name`) the façade's check throws first, or why it cannot come. */
const PROOFS: Record<string, Proof> = {
  kOk: { never: 'not a refusal' },
  // x is the only pointer a caller gives; y, the statistics and the stage vectors are the façade's
  // own buffers, and the stages are of the one row the row check picks.
  kNullPointer: { cases: ['3: x as null', '30: layerNormStages row = 4', 'R23: rmsNormStages row 4 of 4'] },
  kInvalidWidth: {
    cases: [
      '7: layerNorm d = 0',
      '7: layerNormStats d = 0.5',
      '7: layerNormStages d = -1',
      '7: createLayerNorm d = 0',
      'R23: rmsNorm d = 0',
    ],
  },
  kInvalidEpsilon: {
    cases: [
      '17: layerNorm eps = -1',
      '18: layerNorm eps = NaN',
      '19: layerNorm eps = Infinity',
      '17: layerNormStats eps = -1',
      '19: layerNormStages eps = Infinity',
      '17: createLayerNorm eps = -1e-9',
      'R23: createRmsNorm eps "1"',
      'R21: epsilon -1',
    ],
  },
  // A row must fit in wasm memory; the core then gets a chunk's rows (at most 65,536 values) or one
  // row per call, or a tensor's rows, whose bytes were allocated: rows · d · size fits in 32 bits,
  // and so do d floats (d ≤ 2^28) and the per-row statistics (a chunk's rows, at most 32,768).
  kSizeOverflow: {
    cases: [
      '13: a row too wide for wasm memory',
      'R18: normalized dimensions of more values than a row may have',
      '45: an allocation larger than wasm can ever hold',
    ],
  },
  kNoKernel: { never: 'the bindings name no kernel: every call runs the default one (checked below)' },
  // The norm is the method called (layerNorm, rmsNorm, …), sent as its code from NORMS (checked below).
  kInvalidNorm: { never: 'the norm is the method called, and NORMS holds only the header’s codes (checked below)' },
  kInvalidDType: {
    cases: ['R3: dtype "fp16"', 'R3: dtype null', 'R3: createRmsNorm dtype 16', 'R3: allocate dtype "int8"'],
  },
  kBetaWithRmsNorm: { cases: ['R9: rmsNorm with beta', 'R9: createRmsNorm with beta', 'R9: rmsNormStages with beta'] },
  kMeanWithRmsNorm: { cases: ['R10: rmsNorm with mean'] },
  kBiasWithoutResidual: { cases: ['R6: bias without residual', 'R6: stages bias without residual'] },
  kSumOutWithoutResidual: { cases: ['R6: sumOut without residual'] },
  kSumOutIsOutput: { cases: ['R8: sumOut = out', 'R8: sumOut overlapping out by one value'] },
  kResidualNotHere: {
    cases: [
      'R27: layerNormStats with a residual',
      'R27: layerNormStats with a bias',
      'R27: layerNormStats with a sumOut',
    ],
  },
  // What only the run can know: a 16-bit row's staging the core could not allocate. The façade
  // passes staging on every path; the status still comes back as a RangeError of its own
  // (tests/core/memory-full.test.ts: the core's own refusal …).
  kOutOfMemory: { never: 'a run-time status, not a rule (tests/core/memory-full.test.ts)' },
};

const byName = new Map(CASES.map((c) => [`${c.row}: ${c.name}`, c] as const));
const proven = Object.entries(PROOFS).flatMap(([status, p]) =>
  'cases' in p ? p.cases.map((name) => ({ status, name, case: byName.get(name) })) : [],
);

let rt: pkg.LayerNormRuntime;
let c: Context;
beforeAll(async () => {
  rt = await pkg.init();
  c = { t: rt, ...arrays() } as unknown as Context;
});

const x = () => new Float32Array(12).map((_, i) => i * 0.5);

describe('every status the core can return is a rule the façade checks first', () => {
  it('each status of layernorm.h has its proof here, and nothing else does', () => {
    const statuses = cppEnum('Status');
    expect(Object.keys(statuses).length).toBeGreaterThan(10);
    expect(Object.keys(PROOFS).sort()).toEqual(Object.keys(statuses).sort());
  });

  it('each case named is in the catalogue and runs on the main thread and through a worker', () => {
    const missing = proven.filter((p) => p.case === undefined).map((p) => `${p.status}: ${p.name}`);
    expect(missing).toEqual([]);
    // allocate() exists on the main thread only; every other case runs in both places.
    const mainOnly = proven.filter((p) => p.case!.on !== 'both').map((p) => p.name);
    expect(mainOnly).toEqual(['45: an allocation larger than wasm can ever hold', 'R3: allocate dtype "int8"']);
  });

  for (const p of proven) {
    it(`${p.status}: ${p.name}`, async () => {
      const e = p.case as ErrorCase;
      const heap = rt.heapInUse();
      expectCaseError(await failure(() => e.call(c), e.async), e);
      expect(rt.heapInUse()).toBe(heap);
      expectGood(rt.layerNorm(x(), 3, { gamma: GAMMA3 }), rt.rmsNorm(x(), 3, { residual: x() }));
    });
  }

  it('the norms and dtypes the façade sends are the header’s codes, and only those', () => {
    // A norm crosses as its facts, coded as the header's NormOf() codes them.
    const bit = (fact: string) => Number(HEADER.match(new RegExp(`${fact} \\? (\\d+) : 0`))?.[1]);
    const [tag, centred, one, bias] = [
      Number(/\b(0x[0-9a-f]+) \|/.exec(HEADER)?.[1]),
      bit('centred'),
      bit('kOne'),
      bit('bias'),
    ];
    expect([tag, centred, one, bias]).toEqual([0x100, 1, 2, 4]);
    for (const n of Object.values(NORMS)) {
      const facts = (n.centred ? centred : 0) | ((n.divisor as string) === 'one' ? one : 0) | (n.bias ? bias : 0);
      expect(normWire(n), n.name).toBe(tag | facts);
    }
    expect([normWire(NORMS.layernorm), normWire(NORMS.rmsnorm)]).toEqual([tag | centred | bias, tag]);
    expect(cppEnum('Norm')).toEqual({ kLayerNorm: 0, kRmsNorm: 1 });
    expect(DTYPE_CODES).toEqual({ float32: 0, float16: 1, bfloat16: 2 });
    expect(cppEnum('DType')).toEqual({ kFloat32: 0, kFloat16: 1, kBFloat16: 2 });
  });

  it('a status the checks should have made impossible is reported as the defect it would be', () => {
    const heap = (rt as unknown as { heap: { check(status: number, fn: string): void } }).heap;
    expect(() => heap.check(0, 'layerNorm')).not.toThrow();
    expect(() => heap.check(12, 'layerNorm')).toThrow(
      new Error('layerNorm: the core refused a call the checks had passed (layernorm::Status 12): a defect'),
    );
  });

  it('the bindings call only the entry points that trust their call, and name no kernel', () => {
    const code = BINDINGS.replace(/\/\/.*$/gm, '');
    expect(code.match(/layernorm::(Normalize|Statistics|Stages|LayerNorm|Reference)\(/g)).toBeNull();
    expect(code.match(/layernorm::detail::\w+Validated\(/g)?.sort()).toEqual([
      'layernorm::detail::NormalizeValidated(',
      'layernorm::detail::StagesValidated(',
      'layernorm::detail::StatisticsValidated(',
    ]);
    expect(code).not.toMatch(/FindKernel|Kernels\(\)/);
  });
});
