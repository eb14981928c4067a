/**
 * The command line's work: parse the arguments, load the weights (LayerNorm or RMSNorm, as the
 * checkpoint holds), normalize, report, write, compare. Resolves to the exit status.
 */
import { extname } from 'node:path';
import { parseArgs } from 'node:util';
import { compareOutputs, DEFAULT_NORM, init, NORMS } from '../index.js';
import {
  loadNormWeights,
  writeNpy,
  type LoadWeightsOptions,
  type NormWeights,
  type WeightsSource,
} from '../io/index.js';
import { checkOutput, readActivations, weightsSource, writeFileAtomic } from './files.js';
import { kb, range, shapeText, squeezed } from './format.js';
import { USAGE, UsageError } from './usage.js';
import { errorText } from '../checks/error-text.js';

export interface CliIO {
  out(line: string): void;
  err(line: string): void;
  /** The runtime factory; replaceable in tests. */
  init?: typeof init;
}

/** Decimal numbers only, as they are written in papers and configs: Number() would also take "0x10" or "0b1". */
const DECIMAL = /^\+?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

function number(flag: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!DECIMAL.test(text)) {
    throw new UsageError(`${flag} expects a decimal number ≥ 0 such as 1e-5 or 0.001, got ${JSON.stringify(text)}`);
  }
  // A number a double cannot hold would silently become 0 or Infinity: 1e-400 is not ε = 0.
  const nonzero = /[1-9]/.test(text.split(/e/i)[0]!);
  if (value === Infinity || (value === 0 && nonzero)) {
    throw new UsageError(
      `${flag} expects a decimal number ≥ 0 that a double holds (0, or from ${Number.MIN_VALUE} to ${Number.MAX_VALUE}), ` +
        `got ${JSON.stringify(text)}, which would be read as ${value}`,
    );
  }
  return value;
}

/** Runs the command; resolves to the exit status instead of exiting, so it can be tested. */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  try {
    return await run(argv, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`layernorm-wasm: ${error.message}`);
      io.err('Run layernorm-wasm --help for usage.');
      return 2;
    }
    io.err(`layernorm-wasm: ${errorText(error)}`);
    return 1;
  }
}

async function run(argv: string[], io: CliIO): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        weights: { type: 'string' },
        'weight-name': { type: 'string' },
        'bias-name': { type: 'string' },
        'no-bias': { type: 'boolean' },
        beta: { type: 'string' },
        config: { type: 'string' },
        eps: { type: 'string' },
        in: { type: 'string' },
        out: { type: 'string' },
        expect: { type: 'string' },
        tol: { type: 'string' },
        backend: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const a = parsed.values;
  if (a.help) {
    io.out(USAGE);
    return 0;
  }
  if (!a.weights) throw new UsageError('--weights is required (a URL, a file, or "gpt2")');
  if (!a.in) throw new UsageError('--in is required (the activations file)');
  if (a['no-bias'] && (a['bias-name'] || a.beta))
    throw new UsageError('--no-bias cannot be combined with --bias-name or --beta');
  const backend = a.backend ?? 'auto';
  if (backend !== 'auto' && backend !== 'simd' && backend !== 'scalar') {
    throw new UsageError(`--backend expects auto, simd or scalar, got ${JSON.stringify(backend)}`);
  }
  const epsGiven = a.eps === undefined ? null : number('--eps', a.eps, 1e-5);
  const tol = number('--tol', a.tol, 1e-5);
  if (a.tol !== undefined && !a.expect) throw new UsageError('--tol needs --expect');
  if (a.out && extname(a.out).toLowerCase() !== '.npy')
    throw new UsageError(`--out writes .npy; got ${JSON.stringify(a.out)}`);
  if (a.out) await checkOutput(a.out);

  let source: WeightsSource = await weightsSource('--weights', a.weights);
  const options: LoadWeightsOptions = {};
  if (a.config) options.config = await weightsSource('--config', a.config);
  if (a['weight-name']) options.weight = a['weight-name'];
  if (a['bias-name']) options.bias = a['bias-name'];
  if (a['no-bias']) options.bias = null;
  if (a.beta) {
    if (extname(a.weights).toLowerCase() !== '.npy')
      throw new UsageError('--beta goes with a .npy file given to --weights');
    source = { gamma: source as string | File, beta: await weightsSource('--beta', a.beta) };
  }
  const x = await readActivations('--in', a.in);
  const expected = a.expect ? await readActivations('--expect', a.expect) : null;

  const weights: NormWeights = await loadNormWeights(source, options);
  const d = weights.d;
  const last = x.shape.at(-1);
  if (last !== d) {
    throw new Error(
      `${a.in}: expected the last dimension to be d = ${d} (from the weights), got shape [${x.shape.join(', ')}]`,
    );
  }
  // The page's lab's rule: shapes must match, axes of size 1 aside ([1, 6, 32] is [6, 32]).
  if (expected && shapeText(squeezed(expected.shape)) !== shapeText(squeezed(x.shape))) {
    throw new Error(
      `${a.expect}: expected the shape of ${a.in}, ${shapeText(x.shape)} (axes of size 1 aside), got ${shapeText(expected.shape)}`,
    );
  }
  const rows = x.data.length / d;
  const eps = epsGiven ?? weights.eps ?? 1e-5;
  const epsFrom = epsGiven !== null ? '--eps' : weights.eps !== null ? 'from the checkpoint' : 'default';

  const rt = await (io.init ?? init)({ backend });
  const norm = NORMS[weights.norm];
  const mean = new Float64Array(rows),
    rstd = new Float64Array(rows);
  // The statistics come from the same pass as the output (the mean from a centred norm's only).
  const call = rt[norm.api.call] as (x: Float32Array, d: number, options: object) => Float32Array;
  const callOptions = { gamma: weights.gamma, beta: weights.beta, eps, mean: norm.centred ? mean : null, rstd };
  const normalize = () => call.call(rt, x.data, d, callOptions);
  // One untimed call so the timing excludes first-call costs (heap growth, JIT tiers).
  normalize();
  const t0 = performance.now();
  const y = normalize();
  const ms = performance.now() - t0;

  io.out(
    `weights   ${weights.norm === DEFAULT_NORM ? '' : `${norm.name} `}${weights.names.weight}` +
      `${weights.names.bias ? `, ${weights.names.bias}` : norm.bias ? ' (no bias)' : ''} ` +
      `[${weights.dtype}] from ${weights.source}, ${kb(weights.bytesRead)} read` +
      (weights.convention.gain !== 'w' ? `, γ = ${weights.convention.gain} (${weights.convention.family})` : ''),
  );
  for (const warning of weights.warnings) io.err(`layernorm-wasm: warning: ${warning}`);
  io.out(`input     ${a.in} shape [${x.shape.join(', ')}]: ${rows} rows, d = ${d}, eps = ${eps} (${epsFrom})`);
  io.out(`backend   ${rt.backend}, kernel ${rt.kernel}`);
  io.out(`time      ${ms.toFixed(3)} ms`);
  if (norm.centred) io.out(`mean      ${range(mean)}`);
  io.out(`rstd      ${range(rstd)}`);

  if (a.out) {
    await writeFileAtomic(a.out, writeNpy(y, x.shape));
    io.out(`wrote     ${a.out} (float32, shape [${x.shape.join(', ')}])`);
  }
  if (expected) {
    const c = compareOutputs(y, expected.data, d, weights.beta);
    const at =
      c.maxAbs > 0 && c.worstIndex >= 0 ? ` at row ${Math.floor(c.worstIndex / d)}, column ${c.worstIndex % d}` : '';
    const pass = c.maxAbs <= tol && c.nonFiniteMismatches === 0;
    io.out(
      `expect    ${a.expect}${shapeText(expected.shape) !== shapeText(x.shape) ? ` (shape ${shapeText(expected.shape)}: the input's, axes of size 1 aside)` : ''}: max abs ${c.maxAbs.toExponential(3)}${at}, max sULP ${c.maxScaledUlp.toFixed(2)}, ` +
        `${c.differingBits} of ${y.length} values differ` +
        (c.nonFiniteMismatches ? `, ${c.nonFiniteMismatches} non-finite values disagree (NaN, +Inf, -Inf)` : ''),
    );
    io.out(
      `result    ${pass ? 'PASS' : 'FAIL'}: ` +
        (c.nonFiniteMismatches && c.maxAbs <= tol
          ? `${c.nonFiniteMismatches} non-finite values disagree`
          : `max abs ${pass ? '≤' : '>'} tol ${tol}`),
    );
    if (!pass) return 1;
  }
  return 0;
}
