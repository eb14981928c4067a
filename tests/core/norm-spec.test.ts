// A third norm is one row in web/src/norms.ts (plus its kernel): with a made-up row added to the
// built table before anything reads it — a centred norm with no β, and
// its one form — everything that can be checked without a kernel takes it from the table: the
// kinds and forms, the call checks and their messages, the one-token path's checks, the plain-path
// decision, the explainer's weights check, the page's permalinks, forms and statistics labels, and
// the loader's refusal of a kind the caller does not take, and the runtime's and the worker's
// methods for it, under the names the row gives. The row is the test's, not the product's.
import { describe, expect, it, vi } from 'vitest';

vi.mock('../../dist/norms.js', async (importOriginal) => {
  const table = await importOriginal<Record<string, unknown>>();
  const norms = table.NORMS as Record<string, unknown>;
  const forms = table.NORM_FORMS as Record<string, unknown>;
  // The row and its form, as a maintainer adding the norm would write them. Its facts are a
  // LayerNorm's without β, so the core computes exactly a LayerNorm without β for it.
  norms.centrednorm = {
    name: 'CentredNorm',
    equation: 'y = γ ⊙ (x − μ) / √(mean((x − μ)²) + ε)',
    centred: true,
    divisor: 'width',
    bias: false,
    moment: 'c²',
    momentName: 'centred square',
    statistics: ['μ = Σᵢ xᵢ / d', 'c² = Σᵢ (xᵢ − μ)² / d'],
    api: {
      call: 'centredNorm',
      create: 'createCentredNorm',
      stages: 'centredNormStages',
      reference: 'centredNormReference',
    },
  };
  forms.centrednorm = {
    norm: 'centrednorm',
    bias: false,
    label: 'CentredNorm (γ only)',
    short: 'CentredNorm',
    equation: 'y = γ ⊙ (x − μ) / √(mean((x − μ)²) + ε)',
    url: 'cn',
    bench: 'cn',
  };
  // The lists are the tables' keys, computed once when the module loads: they grow with the row.
  (table.NORM_KINDS as string[]).push('centrednorm');
  (table.NORM_FORM_NAMES as string[]).push('centrednorm');
  return table;
});

const { NORMS, NORM_FORMS, NORM_KINDS, NORM_FORM_NAMES, isNormKind, normFormOf, normOfForm } =
  await import('../../dist/norms.js');
const { checkNormCall, isPlain } = await import('../../dist/checks/call.js');
const { quickCheck } = await import('../../dist/checks/quick-check.js');
const { checkWeights: checkExplainerWeights } = await import('../../dist/explainer/inputs.js');
const { decodePermalink, encodePermalink } = await import('../../web/page/src/permalink.ts');
const { initialState } = await import('../../web/page/src/state.ts');
const { formToRun } = await import('../../web/page/src/engine/form.ts');
const { normFor } = await import('../../web/page/src/engine/norm.ts');
const { normFormRadios } = await import('../../web/page/plugins/norm-forms.ts');

const KIND = 'centrednorm' as never;
const d = 4;
const x = new Float32Array(2 * d).map((_, i) => i);
const gamma = new Float32Array(d).fill(1);

describe('a third norm, specified by one row', () => {
  it('is a kind and a form: the lists, the guard and the form of its facts come from the table', () => {
    expect(NORM_KINDS).toEqual(Object.keys(NORMS));
    expect(NORM_KINDS.at(-1)).toBe('centrednorm');
    expect(NORM_FORM_NAMES).toEqual(Object.keys(NORM_FORMS));
    expect(NORM_FORM_NAMES.at(-1)).toBe('centrednorm');
    expect([isNormKind('centrednorm'), isNormKind('scalenorm')]).toEqual([true, false]);
    expect(normFormOf(KIND, false)).toBe('centrednorm');
    // A norm without β runs in its β-free form whatever β the caller has.
    expect(normFormOf(KIND, true)).toBe('centrednorm');
    expect(normOfForm('centrednorm' as never).name).toBe('CentredNorm');
  });

  it("is checked by its facts: no β (refused in the table's words), a mean (taken), the plain path as any norm's", () => {
    expect(() => checkNormCall('centredNorm', KIND, x, d, { gamma, beta: gamma })).toThrow(
      new TypeError('centredNorm: CentredNorm has no bias term, so no beta option; got beta Float32Array(4)'),
    );
    const mean = new Float64Array(2);
    const c = checkNormCall('centredNorm', KIND, x, d, { gamma, mean });
    expect([c.norm, c.rows, c.mean === mean, isPlain(c)]).toEqual(['centrednorm', 2, true, true]);
    // Fused or 16-bit, it is not plain, as any norm's call.
    expect(isPlain(checkNormCall('centredNorm', KIND, x, d, { gamma, residual: x }))).toBe(false);
    expect(isPlain(checkNormCall('centredNorm', KIND, new Uint16Array(8), d, { gamma, dtype: 'bfloat16' }))).toBe(
      false,
    );
    // The one-token path's checks agree: β declined (the full checks then refuse it), the mean taken.
    expect(quickCheck('centredNorm', KIND, x, d, { gamma, beta: gamma })).toBeNull();
    expect(quickCheck('centredNorm', KIND, x, d, { gamma, mean })?.mean).toBe(mean);
    expect(quickCheck('rmsNorm', 'rmsnorm', x, d, { gamma, mean })).toBeNull();
  });

  it("the explainer's weights: the kind accepted, β refused for it, the kinds listed from the table", () => {
    expect(checkExplainerWeights({ gamma, norm: 'centrednorm' })?.norm).toBe('centrednorm');
    expect(() => checkExplainerWeights({ gamma, beta: gamma, norm: 'centrednorm' })).toThrow(
      new RangeError(
        '<layernorm-explainer>: CentredNorm has no bias term, so no weights.beta option; got weights.beta Float32Array(4)',
      ),
    );
    const kinds = NORM_KINDS.map((k) => `'${k}'`);
    expect(() => checkExplainerWeights({ gamma, norm: 'scalenorm' })).toThrow(
      new TypeError(
        `<layernorm-explainer>: weights.norm must be ${kinds.slice(0, -1).join(', ')} or ${kinds.at(-1)}, got string "scalenorm"`,
      ),
    );
  });

  it('the page: its checkpoint runs in its form, its code is no preset link, the presets stay LayerNorm’s', () => {
    const weights = { id: 1, gamma, beta: null, d, norm: KIND };
    const params = { eps: 1e-5, form: 'layernorm' as const };
    expect(normFor(weights, params)).toEqual({ form: 'centrednorm', gamma, beta: null, eps: 1e-5 });
    const s = { ...initialState(), weights: { ...weights, beta: gamma } as never };
    expect(formToRun(s.weights, s.form)).toBe('centrednorm');
    // A link names a preset by its code from the table; the new form is the checkpoint's, not a preset.
    expect(decodePermalink(new URLSearchParams('v=nobias')).form).toBe('biasfree');
    expect(decodePermalink(new URLSearchParams('v=cn')).form).toBeUndefined();
    expect(encodePermalink({ ...initialState(), form: 'biasfree' }).get('v')).toBe(NORM_FORMS.biasfree.url);
    // The Layer card's static markup has its radio: the table's label, disabled until its weights load.
    const radios = normFormRadios()
      .split('\n')
      .map((line) => line.trim());
    expect(radios.map((r) => /value="(\w+)"/.exec(r)?.[1])).toEqual(NORM_FORM_NAMES);
    expect(radios.at(-1)).toBe(
      '<label class="radio"><input type="radio" name="preset" value="centrednorm" disabled /> ' +
        'CentredNorm (γ only) <span class="hint">when the checkpoint holds one</span></label>',
    );
    expect(radios[0]).toContain('value="layernorm" checked />');
  });

  it('the loader refuses a kind the caller does not take, naming both kinds from the table', async () => {
    const { loadLayerNormWeights } = await import('../../dist/io/index.js');
    const config = { model_type: 'llama', rms_norm_eps: 1e-6, hidden_size: d };
    const npy = await import('../../dist/io/npy.js');
    const g = npy.writeNpy(gamma, [d]);
    await expect(loadLayerNormWeights({ gamma: g }, { config })).rejects.toThrow(
      `Uint8Array (144 bytes): invalid npy: expected a ${NORMS.layernorm.name}, got an ${NORMS.rmsnorm.name}: ` +
        `"Uint8Array (144 bytes)" is the gain of an RMSNorm (the config object (model_type "llama"): rms_norm_eps = 0.000001); ` +
        'load it with loadNormWeights, which returns either kind',
    );
  });

  it("the runtime's and the worker's methods: the row's names, its checks, stages of its facts", async () => {
    const { init } = await import('../../dist/index.js');
    const { RUNTIME_METHODS } = await import('../../dist/worker/methods.js');
    const rt = (await init()) as unknown as Record<string, (...args: unknown[]) => unknown> & {
      layerNorm: (x: Float32Array, d: number, o: object) => Float32Array;
      layerNormStages: (x: Float32Array, d: number, row: number, o: object) => Record<string, unknown>;
    };
    const data = new Float32Array(3 * d).map((_, i) => Math.sin(i) * 3 + 1);
    const mean = new Float64Array(3);
    // The call: checked as its row says (β refused, the mean taken), computed by its kernel.
    expect(() => rt.centredNorm!(data, d, { gamma, beta: gamma })).toThrow(
      new TypeError('centredNorm: CentredNorm has no bias term, so no beta option; got beta Float32Array(4)'),
    );
    const y = rt.centredNorm!(data, d, { gamma, mean }) as Float32Array;
    expect(y).toEqual(rt.layerNorm(data, d, { gamma }));
    expect(mean[1]).toBeCloseTo((data[4]! + data[5]! + data[6]! + data[7]!) / 4, 6);
    // Its stages: a centred norm's statistics and centring, and no `scaled` step (it has no β).
    const stages = rt.centredNormStages!(data, d, 1, { gamma }) as Record<string, unknown>;
    const ln = rt.layerNormStages(data, d, 1, { gamma });
    expect(Object.keys(stages).sort()).toEqual(
      ['centered', 'd', 'dtype', 'eps', 'input', 'mean', 'normalized', 'output', 'row', 'rstd', 'variance'].sort(),
    );
    for (const key of Object.keys(stages)) expect(stages[key]).toEqual(ln[key]);
    // A resident norm of it.
    const norm = rt.createCentredNorm!(d, { gamma }) as {
      norm: string;
      forward: (x: Float32Array) => Float32Array;
      dispose(): void;
    };
    expect(norm.norm).toBe('centrednorm');
    expect(norm.forward(data)).toEqual(y);
    norm.dispose();
    expect(() => rt.createCentredNorm!(d, { beta: gamma })).toThrow(
      new TypeError('createCentredNorm: CentredNorm has no bias term, so no beta option; got beta Float32Array(4)'),
    );
    // The worker crosses the same three methods, checking the call in the caller's thread first.
    expect(RUNTIME_METHODS.centredNorm?.precheck).toBeTypeOf('function');
    expect(() => RUNTIME_METHODS.centredNorm!.precheck!([data, d, { beta: gamma }])).toThrow(
      'centredNorm: CentredNorm has no bias term',
    );
    expect([RUNTIME_METHODS.centredNormStages?.arity, RUNTIME_METHODS.createCentredNorm?.resident?.length]).toEqual([
      4, 6,
    ]);
  });
});
