// The command line, in process against the test kit's exact oracle (the program's logic) and as the built
// bin (dist/cli/index.js) in a child process. Long because it is one table of runs and messages.
import { execFile } from 'node:child_process';
import {
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../web/src/cli/index.js';
import { readNpy, writeNpy } from '../../web/src/io/index.js';
import { compareOutputs } from '../../web/src/numerics/metrics.js';
import type { LayerNormRuntime } from '../../web/src/types.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { exactLayerNorm, exactRmsNorm } from '../kit/exact.mjs';
import { exactReference } from '../kit/stats.mjs';
import { buildGguf, buildSafetensors, f32Bytes, lnfValues, toBytes } from '../kit/checkpoints/index.mjs';
import { rng } from '../kit/random.mjs';

const SEED = 31337;
const D = 32;
const ROWS = 6;
const root = fileURLToPath(new URL('../..', import.meta.url));
const distCli = join(root, 'dist', 'cli', 'index.js');

/** A runtime made of the test kit's exact oracle, so the in-process tests check the program, not a kernel. */
async function referenceRuntime(): Promise<LayerNormRuntime> {
  type Options = { gamma?: Float32Array | null; beta?: Float32Array | null; eps?: number } & {
    mean?: Float64Array;
    rstd?: Float64Array;
  };
  return {
    backend: 'scalar',
    kernel: 'reference',
    layerNorm(x: Float32Array, d: number, o: Options = {}) {
      const r = exactReference(x, d, { gamma: o.gamma, beta: o.beta, eps: o.eps });
      o.mean?.set(r.mean);
      o.rstd?.set(r.rstd);
      return r.y;
    },
    rmsNorm(x: Float32Array, d: number, o: Options = {}) {
      const r = exactReference(x, d, { norm: 'rmsnorm', gamma: o.gamma, eps: o.eps });
      o.rstd?.set(r.rstd);
      return r.y;
    },
  } as unknown as LayerNormRuntime;
}

let dir: string;
let server: FixtureServer;
const { gamma, beta } = lnfValues(SEED, D);
const r = rng(SEED);
const x = Float32Array.from({ length: ROWS * D }, (_, i) => (r() - 0.5) * 8 + (i % D === 3 ? 50 : 0));
const yRef = exactLayerNorm(x, D, { gamma, beta, eps: 1e-5 });
const weightsFile = toBytes(
  buildSafetensors([
    { name: 'h.0.ln_1.bias', dtype: 'F32', shape: [D], data: f32Bytes(beta) },
    { name: 'h.0.ln_1.weight', dtype: 'F32', shape: [D], data: f32Bytes(gamma) },
    { name: 'ln_f.bias', dtype: 'F32', shape: [D], data: f32Bytes(beta) },
    { name: 'ln_f.weight', dtype: 'F32', shape: [D], data: f32Bytes(gamma) },
  ]).file,
);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lnw-cli-'));
  writeFileSync(join(dir, 'model.safetensors'), weightsFile);
  writeFileSync(join(dir, 'x.npy'), writeNpy(x, [2, ROWS / 2, D]));
  writeFileSync(join(dir, 'y_ref.npy'), writeNpy(yRef, [2, ROWS / 2, D]));
  const off = yRef.slice();
  off[5] = off[5]! + 1e-3;
  writeFileSync(join(dir, 'y_off.npy'), writeNpy(off, [2, ROWS / 2, D]));
  writeFileSync(join(dir, 'y_off_rows.npy'), writeNpy(off, [ROWS, D]));
  writeFileSync(join(dir, 'gamma.npy'), writeNpy(gamma, [D]));
  writeFileSync(join(dir, 'beta.npy'), writeNpy(beta, [D]));
  const rowsText = Array.from({ length: ROWS }, (_, i) => Array.from(x.subarray(i * D, (i + 1) * D)).join(' ')).join(
    '\n',
  );
  writeFileSync(join(dir, 'x.txt'), rowsText);
  writeFileSync(join(dir, 'x.json'), JSON.stringify({ shape: [ROWS, D], data: Array.from(x) }));
  server = await startFixtureServer({ files: { 'model.safetensors': weightsFile } });
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await server.close();
});

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { out: (l) => out.push(l), err: (l) => err.push(l), init: referenceRuntime });
  return { code, out: out.join('\n'), err: err.join('\n') };
}
const p = (name: string) => join(dir, name);

describe('CLI (in process, reference runtime)', () => {
  it('normalizes, writes y.npy and passes --expect', async () => {
    const res = await cli(
      '--weights',
      p('model.safetensors'),
      '--in',
      p('x.npy'),
      '--out',
      p('y.npy'),
      '--expect',
      p('y_ref.npy'),
    );
    expect(res.err).toBe('');
    expect(res.code).toBe(0);
    expect(res.out).toContain(
      `weights   ln_f.weight, ln_f.bias [F32] from ${p('model.safetensors')} (${weightsFile.length} bytes), ` +
        // The header and ln_f's two tensors, not h.0.ln_1's.
        `${weightsFile.length - 2 * D * 4} B read`,
    );
    expect(res.out).toContain(
      `input     ${p('x.npy')} shape [2, 3, ${D}]: ${ROWS} rows, d = ${D}, eps = 0.00001 (default)`,
    );
    expect(res.out).toContain('backend   scalar, kernel reference');
    expect(res.out).toMatch(/time {6}\d+\.\d{3} ms/);
    expect(res.out).toMatch(/mean {6}\[-?\d/);
    expect(res.out).toContain('max abs 0.000e+0, max sULP 0.00, 0 of 192 values differ');
    expect(res.out).toContain('result    PASS');
    const y = readNpy(readFileSync(p('y.npy')));
    expect(y.shape).toEqual([2, 3, D]);
    expect(y.data).toEqual(yRef);
  });

  it('exits 1 when max abs exceeds --tol, reporting where', async () => {
    const res = await cli(
      '--weights',
      p('model.safetensors'),
      '--in',
      p('x.npy'),
      '--expect',
      p('y_off.npy'),
      '--tol',
      '1e-4',
    );
    expect(res.code).toBe(1);
    expect(res.out).toMatch(/max abs 1\.000e-3 at row 0, column 5, max sULP \d+\.\d\d, 1 of 192 values differ/);
    expect(res.out).toContain('result    FAIL: max abs > tol 0.0001');
    expect(
      (await cli('--weights', p('model.safetensors'), '--in', p('x.npy'), '--expect', p('y_off.npy'), '--tol', '1e-2'))
        .code,
    ).toBe(0);
  });

  it('reads text and JSON input, explicit names, --no-bias and .npy weights', async () => {
    for (const input of ['x.txt', 'x.json']) {
      const res = await cli(
        '--weights',
        p('model.safetensors'),
        '--in',
        p(input),
        '--expect',
        p('y_off_rows.npy'),
        '--tol',
        '1e-2',
      );
      expect(res.code, res.err).toBe(0);
    }
    const named = await cli(
      '--weights',
      p('model.safetensors'),
      '--weight-name',
      'h.0.ln_1.weight',
      '--bias-name',
      'h.0.ln_1.bias',
      '--in',
      p('x.npy'),
    );
    expect(named.out).toContain('weights   h.0.ln_1.weight, h.0.ln_1.bias');
    const nobias = await cli(
      '--weights',
      p('model.safetensors'),
      '--no-bias',
      '--in',
      p('x.npy'),
      '--out',
      p('y_nb.npy'),
    );
    expect(nobias.out).toContain('weights   ln_f.weight (no bias)');
    expect(readNpy(readFileSync(p('y_nb.npy'))).data).toEqual(exactLayerNorm(x, D, { gamma, eps: 1e-5 }));
    const npy = await cli(
      '--weights',
      p('gamma.npy'),
      '--beta',
      p('beta.npy'),
      '--in',
      p('x.npy'),
      '--expect',
      p('y_ref.npy'),
    );
    expect(npy.code, npy.err).toBe(0);
    expect(npy.out).toContain(
      `[float32] from ${p('gamma.npy')} (${128 + 4 * D} bytes) + ${p('beta.npy')} (${128 + 4 * D} bytes)`,
    );
  });

  it('loads weights from a URL with range requests', async () => {
    const res = await cli('--weights', server.url('model.safetensors'), '--in', p('x.npy'), '--expect', p('y_ref.npy'));
    expect(res.code, res.err).toBe(0);
    expect(res.out).toContain(`from ${server.url('model.safetensors')}`);
  });

  it('prints usage for --help', async () => {
    const res = await cli('--help');
    expect(res.code).toBe(0);
    expect(res.out).toMatch(/^Usage: layernorm-wasm --weights/);
    expect(res.out).toContain('--no-bias');
  });

  it('exits 2 with a clear message for bad arguments', async () => {
    const cases: Array<[string[], string]> = [
      [['--in', 'x.npy'], '--weights is required'],
      [['--weights', 'gpt2'], '--in is required'],
      [['--weights', 'w', '--in', 'x', '--bogus'], "Unknown option '--bogus'"],
      [
        ['--weights', 'w', '--in', 'x', '--eps=-1'],
        '--eps expects a decimal number ≥ 0 such as 1e-5 or 0.001, got "-1"',
      ],
      [
        ['--weights', 'w', '--in', 'x', '--eps', 'abc'],
        '--eps expects a decimal number ≥ 0 such as 1e-5 or 0.001, got "abc"',
      ],
      // Number() reads these as 16, 1, 7, 1000 and 0: only decimals are numbers here.
      ...['0x10', '0b1', '0o7', '1_000', ' ', '', 'Infinity', '-0'].map((eps): [string[], string] => [
        ['--weights', 'w', '--in', 'x', `--eps=${eps}`],
        `--eps expects a decimal number ≥ 0 such as 1e-5 or 0.001, got ${JSON.stringify(eps)}`,
      ]),
      [
        ['--weights', 'w', '--in', 'x', '--expect', 'e', '--tol', '0x1'],
        '--tol expects a decimal number ≥ 0 such as 1e-5 or 0.001, got "0x1"',
      ],
      // Decimals a double cannot hold: Number() makes them 0 or Infinity without a word.
      ...[
        ['--eps', '1e-400', '0'],
        ['--eps', '2e-324', '0'],
        ['--eps', `0.${'0'.repeat(400)}1`, '0'],
        ['--eps', '1e400', 'Infinity'],
        ['--tol', '1e-999', '0'],
        ['--tol', '2e308', 'Infinity'],
      ].map(([flag, text, read]): [string[], string] => [
        ['--weights', 'w', '--in', 'x', '--expect', 'e', flag!, text!],
        `${flag} expects a decimal number ≥ 0 that a double holds (0, or from 5e-324 to 1.7976931348623157e+308), got "${text}", which would be read as ${read}`,
      ]),
      [['--weights', 'w', '--in', 'x', '--backend', 'gpu'], '--backend expects auto, simd or scalar, got "gpu"'],
      [['--weights', 'w', '--in', 'x', '--no-bias', '--bias-name', 'b'], '--no-bias cannot be combined'],
      [['--weights', 'w', '--in', 'x', '--tol', '1'], '--tol needs --expect'],
      [['--weights', 'w', '--in', 'x', '--out', 'y.csv'], '--out writes .npy'],
      [
        ['--weights', p('missing.safetensors'), '--in', p('x.npy')],
        `--weights: no such file "${p('missing.safetensors')}"`,
      ],
      [
        ['--weights', 'ftp://host/model.safetensors', '--in', p('x.npy')],
        '--weights: expected an http(s) URL or a file path',
      ],
      [['--weights', p('model.safetensors'), '--in', p('nope.npy')], '--in: no such file'],
      [['--weights', p('model.safetensors'), '--in', p('x.npy'), 'extra'], "Unexpected argument 'extra'"],
    ];
    for (const [args, message] of cases) {
      const res = await cli(...args);
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.err).toContain(message);
      expect(res.err).toContain('Run layernorm-wasm --help for usage.');
    }
  });

  it('--out replaces the previous file as a whole: written beside it, then renamed over it', async () => {
    const out = p('atomic/y.npy');
    mkdirSync(p('atomic'), { recursive: true });
    const previous = writeNpy(Float32Array.of(1, 2, 3), [3]);
    writeFileSync(out, previous);
    // A second name for the previous file: writing in place would change what it shows too.
    linkSync(out, p('atomic/previous.npy'));
    const res = await cli('--weights', p('model.safetensors'), '--in', p('x.npy'), '--out', out);
    expect(res.code, res.err).toBe(0);
    expect(readNpy(readFileSync(out)).data).toEqual(yRef);
    expect(new Uint8Array(readFileSync(p('atomic/previous.npy')))).toEqual(previous);
    expect(statSync(out).ino).not.toBe(statSync(p('atomic/previous.npy')).ino);
    expect(readdirSync(p('atomic')).sort()).toEqual(['previous.npy', 'y.npy']);
  });

  it('--out into a folder that does not exist is refused plainly, before any work', async () => {
    server.reset();
    const res = await cli('--weights', server.url('model.safetensors'), '--in', p('x.npy'), '--out', p('nodir/y.npy'));
    expect(res.code).toBe(2);
    expect(res.err).toContain(`--out: the folder "${p('nodir')}" does not exist`);
    expect(res.err).not.toContain('ENOENT');
    expect(server.requests).toHaveLength(0);
    const folder = await cli('--weights', p('model.safetensors'), '--in', p('x.npy'), '--out', dir + '/');
    expect(folder.code).toBe(2);
  });

  it("uses the checkpoint's ε when --eps is not given, and --eps when it is", async () => {
    writeFileSync(p('config.json'), JSON.stringify({ model_type: 'gpt2', layer_norm_epsilon: 0.5 }));
    const res = await cli(
      '--weights',
      p('model.safetensors'),
      '--config',
      p('config.json'),
      '--in',
      p('x.npy'),
      '--out',
      p('y_eps.npy'),
    );
    expect(res.code, res.err).toBe(0);
    expect(res.out).toContain(`d = ${D}, eps = 0.5 (from the checkpoint)`);
    expect(readNpy(readFileSync(p('y_eps.npy'))).data).toEqual(exactLayerNorm(x, D, { gamma, beta, eps: 0.5 }));
    const given = await cli(
      '--weights',
      p('model.safetensors'),
      '--config',
      p('config.json'),
      '--in',
      p('x.npy'),
      '--eps',
      '1e-3',
    );
    expect(given.out).toContain(`eps = 0.001 (--eps)`);
  });

  it('takes 0 and the smallest doubles for --eps as they are written', async () => {
    for (const [text, eps] of [
      ['0', '0'],
      ['0e-400', '0'],
      ['0.000', '0'],
      ['5e-324', '5e-324'],
      ['3e-324', '5e-324'],
      ['1.7976931348623157e308', '1.7976931348623157e+308'],
    ]) {
      const res = await cli('--weights', p('model.safetensors'), '--in', p('x.npy'), '--eps', text!);
      expect(res.err, text).toBe('');
      expect(res.out).toContain(`eps = ${eps} (--eps)`);
    }
  });

  it('--expect fails when non-finite values disagree, and says how many', async () => {
    const xNaN = x.slice();
    xNaN[2 * D + 1] = NaN; // row 2 comes out all NaN
    writeFileSync(p('x_nan.npy'), writeNpy(xNaN, [ROWS, D]));
    const yNaN = exactLayerNorm(xNaN, D, { gamma, beta, eps: 1e-5 });
    writeFileSync(p('y_nan.npy'), writeNpy(yNaN, [ROWS, D]));
    const same = await cli('--weights', p('model.safetensors'), '--in', p('x_nan.npy'), '--expect', p('y_nan.npy'));
    expect(same.code, same.out).toBe(0);
    const inf = yNaN.slice();
    inf.fill(Infinity, 2 * D, 2 * D + 3);
    inf[2 * D + 3] = -Infinity;
    writeFileSync(p('y_inf.npy'), writeNpy(inf, [ROWS, D]));
    const res = await cli('--weights', p('model.safetensors'), '--in', p('x_nan.npy'), '--expect', p('y_inf.npy'));
    expect(res.code).toBe(1);
    expect(res.out).toContain('4 non-finite values disagree (NaN, +Inf, -Inf)');
    expect(res.out).toContain('result    FAIL: 4 non-finite values disagree');
  });

  it("runs an RMSNorm checkpoint as RMSNorm, with the checkpoint's ε", async () => {
    const llama = buildGguf(
      [
        ['general.architecture', { type: 'string', value: 'llama' }],
        ['llama.attention.layer_norm_rms_epsilon', { type: 'f32', value: 1e-6 }],
      ],
      [{ name: 'output_norm.weight', dims: [D], type: 0, data: f32Bytes(gamma) }],
    );
    writeFileSync(p('llama.gguf'), llama);
    const res = await cli('--weights', p('llama.gguf'), '--in', p('x.npy'), '--out', p('y_rms.npy'));
    expect(res.err).toBe('');
    expect(res.code).toBe(0);
    expect(res.out).toContain(`weights   RMSNorm output_norm.weight [F32] from ${p('llama.gguf')}`);
    // The ε the GGUF states (a float32, read as the shortest decimal that is that float32).
    expect(res.out).toContain('eps = 0.000001 (from the checkpoint)');
    expect(res.out).not.toContain('mean      ');
    const y = readNpy(new Uint8Array(readFileSync(p('y_rms.npy'))));
    const exact = exactRmsNorm(x, D, { gamma, eps: 1e-6 });
    expect(compareOutputs(y.data, exact, D).maxScaledUlp).toBeLessThanOrEqual(4);
  });

  it('runs a Gemma checkpoint with γ = 1 + w, as its config.json names it, and says so', async () => {
    const gemma = toBytes(
      buildSafetensors([{ name: 'model.norm.weight', dtype: 'F32', shape: [D], data: f32Bytes(gamma) }]).file,
    );
    writeFileSync(p('gemma.safetensors'), gemma);
    writeFileSync(p('gemma-config.json'), JSON.stringify({ model_type: 'gemma', rms_norm_eps: 1e-6 }));
    const res = await cli(
      '--weights',
      p('gemma.safetensors'),
      '--config',
      p('gemma-config.json'),
      '--in',
      p('x.npy'),
      '--out',
      p('y_gemma.npy'),
    );
    expect(res.err).toBe('');
    expect(res.code).toBe(0);
    expect(res.out).toContain('weights   RMSNorm model.norm.weight [F32] from ');
    expect(res.out).toContain(', γ = 1 + w (Gemma 1, 2, 3)');
    const y = readNpy(new Uint8Array(readFileSync(p('y_gemma.npy'))));
    const exact = exactRmsNorm(x, D, { gamma: Float32Array.from(gamma, (w) => 1 + w), eps: 1e-6 });
    expect(compareOutputs(y.data, exact, D).maxScaledUlp).toBeLessThanOrEqual(4);
  });

  it('says which family it could not place and what it assumed (RecurrentGemma, which computes with 1 + w)', async () => {
    const w = toBytes(
      buildSafetensors([{ name: 'model.final_norm.weight', dtype: 'F32', shape: [D], data: f32Bytes(gamma) }]).file,
    );
    writeFileSync(p('recurrentgemma.safetensors'), w);
    writeFileSync(
      p('recurrentgemma-config.json'),
      JSON.stringify({
        model_type: 'recurrent_gemma',
        architectures: ['RecurrentGemmaForCausalLM'],
        rms_norm_eps: 1e-6,
      }),
    );
    const res = await cli(
      '--weights',
      p('recurrentgemma.safetensors'),
      '--config',
      p('recurrentgemma-config.json'),
      '--in',
      p('x.npy'),
    );
    expect(res.code).toBe(0);
    expect(res.err).toBe(
      `layernorm-wasm: warning: model_type "recurrent_gemma" in ${p('recurrentgemma-config.json')} is not a family ` +
        `the loader's table knows (README "Which norm, γ and ε"), so it assumed RMSNorm (${p('recurrentgemma-config.json')} ` +
        '(model_type "recurrent_gemma"): rms_norm_eps = 0.000001) and γ = w, the weight as stored (if its code ' +
        'computes with 1 + w, as Gemma’s does, γ is off by 1)',
    );
    expect(res.out).toContain('weights   RMSNorm model.final_norm.weight [F32] from ');
  });

  it('--expect compares shapes, axes of size 1 aside: a transposed [3, 4] fails, a [1, 6, 32] passes and is noted', async () => {
    // 12 values either way: a comparison of lengths would pass [4, 3] against an input [3, 4].
    const g4 = lnfValues(SEED + 9, 4);
    const w4 = toBytes(
      buildSafetensors([
        { name: 'ln_f.bias', dtype: 'F32', shape: [4], data: f32Bytes(g4.beta) },
        { name: 'ln_f.weight', dtype: 'F32', shape: [4], data: f32Bytes(g4.gamma) },
      ]).file,
    );
    writeFileSync(p('w4.safetensors'), w4);
    const x34 = x.slice(0, 12);
    writeFileSync(p('x34.npy'), writeNpy(x34, [3, 4]));
    const y34 = exactLayerNorm(x34, 4, { gamma: g4.gamma, beta: g4.beta, eps: 1e-5 });
    writeFileSync(p('y43.npy'), writeNpy(y34, [4, 3]));
    writeFileSync(p('y134.npy'), writeNpy(y34, [1, 3, 1, 4]));
    const wrong = await cli('--weights', p('w4.safetensors'), '--in', p('x34.npy'), '--expect', p('y43.npy'));
    expect([wrong.code, wrong.err]).toEqual([
      1,
      `layernorm-wasm: ${p('y43.npy')}: expected the shape of ${p('x34.npy')}, [3, 4] (axes of size 1 aside), got [4, 3]`,
    ]);
    const ok = await cli('--weights', p('w4.safetensors'), '--in', p('x34.npy'), '--expect', p('y134.npy'));
    expect([ok.code, ok.err]).toEqual([0, '']);
    expect(ok.out).toContain(
      `expect    ${p('y134.npy')} (shape [1, 3, 1, 4]: the input's, axes of size 1 aside): max abs `,
    );
    expect(ok.out).toContain('result    PASS');
  });

  it('names a local checkpoint by its path in messages', async () => {
    writeFileSync(p('llama.safetensors'), weightsFile.subarray(0, 20));
    const res = await cli('--weights', p('llama.safetensors'), '--in', p('x.npy'));
    expect(res.code).toBe(1);
    expect(res.err).toContain(`layernorm-wasm: ${p('llama.safetensors')} (20 bytes): invalid safetensors:`);
  });

  it('exits 1 for data that does not fit the weights', async () => {
    writeFileSync(p('x5.npy'), writeNpy(new Float32Array(10), [2, 5]));
    const res = await cli('--weights', p('model.safetensors'), '--in', p('x5.npy'));
    expect(res.code).toBe(1);
    expect(res.err).toContain(`expected the last dimension to be d = ${D} (from the weights), got shape [2, 5]`);
    writeFileSync(p('bad.json'), '[[1, 2], [3]]');
    const bad = await cli('--weights', p('model.safetensors'), '--in', p('bad.json'));
    expect(bad.code).toBe(1);
    expect(bad.err).toContain(`${p('bad.json')}: invalid json: ragged the activations`);
  });
});

// The built package, as `npx layernorm-wasm` runs it. `npm test` builds dist/ first; without it
// this block fails (it does not skip): run `npm run build`.
describe('CLI (dist/cli/index.js)', () => {
  beforeAll(() => {
    expect(existsSync(distCli), `${distCli} is missing: run npm run build`).toBe(true);
    expect(
      existsSync(join(root, 'dist', 'wasm', 'layernorm-simd.wasm')),
      'dist/wasm is missing: run npm run build',
    ).toBe(true);
  });

  const spawn = (args: string[]) =>
    new Promise<{ code: number; out: string; err: string }>((resolve) => {
      execFile(process.execPath, [distCli, ...args], (error, stdout, stderr) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out: stdout, err: stderr });
      });
    });

  it('runs the wasm kernels and matches the reference', async () => {
    for (const backend of ['simd', 'scalar']) {
      const res = await spawn([
        '--weights',
        p('model.safetensors'),
        '--in',
        p('x.npy'),
        '--out',
        p(`y-${backend}.npy`),
        '--expect',
        p('y_ref.npy'),
        '--tol',
        '1e-5',
        '--backend',
        backend,
      ]);
      expect(res.err).toBe('');
      expect(res.code).toBe(0);
      expect(res.out).toContain(`backend   ${backend}, kernel f32_layernorm_ukernel__`);
      const y = readNpy(readFileSync(p(`y-${backend}.npy`)));
      expect(y.shape).toEqual([2, 3, D]);
      let maxAbs = 0;
      for (let i = 0; i < y.data.length; i++) maxAbs = Math.max(maxAbs, Math.abs(y.data[i]! - yRef[i]!));
      expect(maxAbs).toBeLessThanOrEqual(1e-5);
    }
  });

  it('says how many rows the μ and rstd ranges leave out because they are NaN', async () => {
    const withNan = x.slice();
    withNan[2 * D + 5] = NaN;
    withNan[4 * D] = Infinity;
    // The kernels' statistics: a row holding NaN or ±Inf has NaN ones (the in-process runtime above
    // is the float64 formula, which would give an infinite mean).
    writeFileSync(p('x_nan.npy'), writeNpy(withNan, [ROWS, D]));
    const some = await spawn(['--weights', p('model.safetensors'), '--in', p('x_nan.npy')]);
    expect(some.code).toBe(0);
    const line = (name: string) => some.out.split('\n').find((l) => l.startsWith(name))!;
    expect(line('mean')).toMatch(
      /^mean {6}\[\S+, \S+\] over 4 of 6 rows; 2 rows are NaN \(their input holds NaN or ±Inf\)$/,
    );
    expect(line('rstd')).toMatch(
      /^rstd {6}\[\S+, \S+\] over 4 of 6 rows; 2 rows are NaN \(their input holds NaN or ±Inf\)$/,
    );
    writeFileSync(p('x_allnan.npy'), writeNpy(new Float32Array(D).fill(NaN), [1, D]));
    const all = await spawn(['--weights', p('model.safetensors'), '--in', p('x_allnan.npy')]);
    expect(all.out).toContain('mean      none: all 1 row is NaN (its input holds NaN or ±Inf)');
    const clean = await spawn(['--weights', p('model.safetensors'), '--in', p('x.npy')]);
    expect(clean.out).toMatch(/\nmean {6}\[\S+, \S+\]\n/);
  });

  it('exits 1 over tolerance, 2 for bad arguments, 0 for --help', async () => {
    expect(
      (
        await spawn([
          '--weights',
          p('model.safetensors'),
          '--in',
          p('x.npy'),
          '--expect',
          p('y_off.npy'),
          '--tol',
          '1e-4',
        ])
      ).code,
    ).toBe(1);
    const bad = await spawn(['--weights']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('layernorm-wasm:');
    const help = await spawn(['--help']);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^Usage: layernorm-wasm/);
  });
});
